/**
 * The chat of `pier attach`: the chamber's transcript rows and live events drawn with pi's own exported
 * components (UserMessageComponent, AssistantMessageComponent, ToolExecutionComponent, …), the way pi's
 * interactive terminal draws the messages it holds. Rows come from the daemon; nothing is written here.
 */
import {
	AssistantMessageComponent,
	BashExecutionComponent,
	BranchSummaryMessageComponent,
	CompactionSummaryMessageComponent,
	getMarkdownTheme,
	ToolExecutionComponent,
	UserMessageComponent,
} from "@earendil-works/pi-coding-agent";
import { type Component, Container, Spacer, Text, type TUI } from "@earendil-works/pi-tui";
import type { EventPayloads, TranscriptRow } from "../../chamber/wire.js";
import { sgr } from "./style.js";

type AssistantRow = Extract<TranscriptRow, { kind: "assistant" }>;
type AssistantMessage = ConstructorParameters<typeof AssistantMessageComponent>[0] & object;
type ToolResult = Parameters<ToolExecutionComponent["updateResult"]>[0];

/** pi's assistant message for a row or a draft: what AssistantMessageComponent reads (content, stop reason). */
function assistantMessage(text: string, thinking: string | undefined, row?: AssistantRow): AssistantMessage {
	const content: unknown[] = [];
	if (thinking) content.push({ type: "thinking", thinking });
	if (text) content.push({ type: "text", text });
	for (const call of row?.toolCalls ?? [])
		content.push({ type: "toolCall", id: call.id, name: call.name, arguments: call.args });
	return {
		role: "assistant",
		content,
		api: "chamber",
		provider: "chamber",
		model: row?.model ?? "",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: row?.errorMessage ? "error" : row?.toolCalls.length ? "toolUse" : "stop",
		...(row?.errorMessage ? { errorMessage: row.errorMessage } : {}),
		timestamp: row?.timestamp ?? Date.now(),
	} as unknown as AssistantMessage;
}

function toolResult(text: string, isError: boolean, diff?: string): ToolResult {
	return {
		content: [{ type: "text", text }],
		isError,
		...(diff ? { details: { diff } } : {}),
	} as unknown as ToolResult;
}

interface Draft {
	component: AssistantMessageComponent;
	text: string;
	thinking: string;
}

interface LiveBash {
	component: BashExecutionComponent;
	command: string;
	output: string;
}

export class TranscriptView {
	readonly container = new Container();
	private readonly rows = new Map<string, Component>();
	private readonly tools = new Map<string, ToolExecutionComponent>();
	private readonly drafts = new Map<string, Draft>();
	private readonly bashes = new Map<string, LiveBash>();
	private readonly markdown = getMarkdownTheme();

	constructor(
		private readonly tui: TUI,
		private cwd: string,
	) {}

	/** A whole view (the first snapshot, or after the session moved in its tree). */
	reset(rows: readonly TranscriptRow[], cwd: string): void {
		this.cwd = cwd;
		this.container.clear();
		this.rows.clear();
		this.tools.clear();
		this.drafts.clear();
		this.bashes.clear();
		for (const row of rows) this.addRow(row);
	}

	/** As pi's terminal: a blank line before a user message or a summary; other components bring their own. */
	private add(component: Component, before?: Component): void {
		const spaced =
			component instanceof UserMessageComponent ||
			component instanceof CompactionSummaryMessageComponent ||
			component instanceof BranchSummaryMessageComponent ||
			component instanceof Text;
		if (spaced && this.container.children.length > 0) this.insert(new Spacer(1), before);
		this.insert(component, before);
	}

	private insert(component: Component, before?: Component): void {
		const at = before ? this.container.children.indexOf(before) : -1;
		if (at < 0) this.container.addChild(component);
		else this.container.children.splice(at, 0, component);
	}

	/** A row persisted to the session: added, or put in place of the draft or earlier version it replaces. */
	addRow(row: TranscriptRow, draftId?: string): void {
		const draft = draftId ? this.drafts.get(draftId) : undefined;
		const previous = this.rows.get(row.id) ?? draft?.component;
		if (draftId) this.drafts.delete(draftId);
		const component = this.componentFor(row);
		if (!component) return;
		if (previous) {
			const at = this.container.children.indexOf(previous);
			if (at >= 0) this.container.children[at] = component;
			else this.add(component);
		} else if (row.kind === "bash") {
			const live = [...this.bashes].find(([, b]) => b.command === row.command);
			if (live) {
				this.bashes.delete(live[0]);
				this.container.removeChild(live[1].component);
			}
			this.add(component);
		} else this.add(component);
		this.rows.set(row.id, component);
		if (row.kind === "assistant") {
			for (const call of row.toolCalls) {
				if (this.tools.has(call.id)) continue;
				const tool = new ToolExecutionComponent(call.name, call.id, call.args, {}, undefined, this.tui, this.cwd);
				this.tools.set(call.id, tool);
				this.add(tool);
			}
		}
	}

	private componentFor(row: TranscriptRow): Component | undefined {
		switch (row.kind) {
			case "user": {
				const files = (row.files ?? []).map((f) => `@${f.path}`).join(" ");
				return new UserMessageComponent(files ? `${files}\n${row.text}` : row.text, this.markdown);
			}
			case "assistant":
				return new AssistantMessageComponent(assistantMessage(row.text, row.thinking, row), false, this.markdown);
			case "tool_result": {
				const tool = this.tools.get(row.toolCallId);
				if (tool) {
					tool.updateResult(toolResult(row.text, row.isError, row.diff));
					return undefined;
				}
				const orphan = new ToolExecutionComponent(row.toolName, row.toolCallId, {}, {}, undefined, this.tui, this.cwd);
				orphan.updateResult(toolResult(row.text, row.isError, row.diff));
				this.tools.set(row.toolCallId, orphan);
				return orphan;
			}
			case "bash": {
				const bash = new BashExecutionComponent(row.command, this.tui, row.excludeFromContext);
				if (row.output) bash.appendOutput(row.output);
				bash.setComplete(row.exitCode, row.cancelled, row.truncated ? ({ truncated: true } as never) : undefined);
				return bash;
			}
			case "compaction":
				return new CompactionSummaryMessageComponent(
					{
						role: "compactionSummary",
						summary: row.summary,
						tokensBefore: row.tokensBefore,
						timestamp: row.timestamp,
					} as never,
					this.markdown,
				);
			case "branch_summary":
				return new BranchSummaryMessageComponent(
					{ role: "branchSummary", summary: row.summary, fromId: "", timestamp: row.timestamp } as never,
					this.markdown,
				);
			case "error":
				return new Text(sgr.red(`${row.source ? `${row.source}: ` : ""}${row.message}`), 1, 0);
			case "dialog":
				return new Text(sgr.dim(`${row.method} "${row.title}" ended unanswered (${row.reason})`), 1, 0);
			case "changes":
				return new Text(sgr.dim(row.text), 1, 0);
			case "card":
				return new Text(
					sgr.dim(`[card${row.card.title ? `: ${row.card.title}` : ""}] (open the chamber to see it)`),
					1,
					0,
				);
			case "app":
				return row.removed
					? undefined
					: new Text(sgr.dim(`[app${row.title ? `: ${row.title}` : ""}] (in the chamber)`), 1, 0);
			case "custom":
				return new Text(sgr.dim(`[${row.customType}]`), 1, 0);
		}
	}

	messageStart(draftId: string): void {
		const component = new AssistantMessageComponent(assistantMessage("", undefined), false, this.markdown);
		this.drafts.set(draftId, { component, text: "", thinking: "" });
		this.add(component);
	}

	messageDelta({ draftId, kind, delta }: EventPayloads["message.delta"]): void {
		const draft = this.drafts.get(draftId);
		if (!draft) return;
		if (kind === "text") draft.text += delta;
		else draft.thinking += delta;
		draft.component.updateContent(assistantMessage(draft.text, draft.thinking || undefined), true);
	}

	toolStart({ toolCallId, toolName, args }: EventPayloads["tool.start"]): void {
		let tool = this.tools.get(toolCallId);
		if (!tool) {
			tool = new ToolExecutionComponent(toolName, toolCallId, args, {}, undefined, this.tui, this.cwd);
			this.tools.set(toolCallId, tool);
			this.add(tool);
		}
		tool.markExecutionStarted();
	}

	toolUpdate({ toolCallId, text }: EventPayloads["tool.update"]): void {
		this.tools.get(toolCallId)?.updateResult(toolResult(text, false), true);
	}

	toolEnd({ toolCallId, text, isError }: EventPayloads["tool.end"]): void {
		this.tools.get(toolCallId)?.updateResult(toolResult(text, isError));
	}

	bashStart({ bashId, command, excludeFromContext }: EventPayloads["bash.start"]): void {
		const component = new BashExecutionComponent(command, this.tui, excludeFromContext);
		this.bashes.set(bashId, { component, command, output: "" });
		this.add(component);
	}

	bashUpdate({ bashId, text }: EventPayloads["bash.update"]): void {
		const bash = this.bashes.get(bashId);
		if (!bash || !text.startsWith(bash.output)) return;
		bash.component.appendOutput(text.slice(bash.output.length));
		bash.output = text;
	}

	bashEnd({ bashId, exitCode, cancelled }: EventPayloads["bash.end"]): void {
		this.bashes.get(bashId)?.component.setComplete(exitCode, cancelled);
	}

	/** A line of the chamber's own (a notification, a note from attach) in the chat. */
	note(text: string): void {
		this.add(new Text(text, 1, 0));
	}
}
