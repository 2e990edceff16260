/**
 * What draws one transcript row, found the way pi's interactive mode finds it (`addMessageToChat`,
 * `addCustomEntryToChat`, `getRegisteredToolDefinition`): a custom message's renderer in pi's runner
 * (`CustomMessageComponent`), a custom entry's renderer (`CustomEntryComponent`, shown only when it has content),
 * a tool's renderers when an extension gave them (`ToolExecutionComponent`, with its result); a protocol extension's
 * message renderer answers over the wire first and is then drawn in the same `CustomMessageComponent`.
 *
 * pi's components catch a renderer that throws and draw their default instead; the chamber wants to say so, so each
 * renderer is wrapped to note what it threw (`Caught`).
 */
import {
	type AgentSession,
	CustomMessageComponent,
	type EntryRenderer,
	getMarkdownTheme,
	type MarkdownTransformer,
	type MessageRenderer,
	type SessionEntry,
	ToolExecutionComponent,
	type ToolRenderers,
} from "@earendil-works/pi-coding-agent";
import { type Component, truncateToWidth } from "@earendil-works/pi-tui";
import {
	type RenderableMessage,
	type RenderedLines,
	renderMessage,
} from "../../extensions/bridge/message-renderers.js";
import { renderEntry } from "../../extensions/bridge/entry-renderers.js";
import { type StyleTheme, styleForTerminal } from "../../extensions/bridge/terminal-style.js";
import type { ExtensionHost } from "../../extensions/host/host.js";
import { BUILTIN_PATH_PREFIX } from "../../pi-seams/builtin-extensions.js";
import { entryRendererOwner, messageRendererOwner, toolRendererOwner } from "../../pi-seams/renderer-owners.js";
import { customEntryComponent, withBuiltInToolRenderers } from "../../pi-seams/tui-render.js";
import { TOOL_DRAWING_PREFIX } from "./drawing-wire.js";

/** What a renderer threw while pi's component called it. */
export interface Caught {
	error?: unknown;
}

export type Expandable = Component & { setExpanded(expanded: boolean): void };

/** One row's drawing source: `build` makes pi's component (calling the renderer), `owner` names its extension. */
export type DrawTarget =
	| { kind: "component"; owner: string; build(caught: Caught): Promise<Expandable | undefined> }
	/** A protocol extension's message renderer: its lines are asked for first (`ask`), then drawn (`build`). */
	| {
			kind: "protocol";
			owner: string;
			ask(expanded: boolean): Promise<RenderedLines | undefined>;
			build(lines: RenderedLines | undefined): Expandable | Promise<Expandable>;
	  };

export interface TargetContext {
	session: AgentSession;
	host: ExtensionHost;
	/** pi's markdown transformers, for the markdown inside drawn messages (pi's runner's, as its terminal uses). */
	transformers?: MarkdownTransformer[];
}

/** pi's `outputPad` setting (the terminal's padding left and right of a message). */
function outputPad(session: AgentSession): number {
	const pad = (session.settingsManager as { getOutputPad?(): number }).getOutputPad?.();
	return typeof pad === "number" ? pad : 1;
}

function caughtBy<F extends (...args: never[]) => unknown>(fn: F, caught: Caught): F {
	return ((...args: Parameters<F>) => {
		try {
			return fn(...args);
		} catch (error) {
			caught.error ??= error;
			throw error;
		}
	}) as F;
}

/** The custom message pi's terminal draws for an entry (pi's `createCustomMessage`). */
function customMessageOf(entry: SessionEntry): (RenderableMessage & { role: "custom"; display: boolean }) | undefined {
	if (entry.type === "custom_message")
		return {
			role: "custom",
			customType: entry.customType,
			content: entry.content,
			display: entry.display,
			...(entry.details !== undefined ? { details: entry.details } : {}),
			timestamp: Date.parse(entry.timestamp) || 0,
		};
	if (entry.type === "message" && (entry.message as { role?: string }).role === "custom")
		return entry.message as unknown as RenderableMessage & { role: "custom"; display: boolean };
	return undefined;
}

/** A protocol extension's lines as the component its renderer would have returned, styled by pi's theme. */
function linesComponent(lines: RenderedLines, theme: unknown): Component {
	const styled = lines.map((line) => line.map((s) => styleForTerminal(theme as StyleTheme, s.style, s.text)).join(""));
	return { render: (w: number) => styled.map((l) => truncateToWidth(l, w)), invalidate() {} };
}

function messageTarget(entry: SessionEntry, cx: TargetContext): DrawTarget | undefined {
	const message = customMessageOf(entry);
	if (!message?.display) return undefined;
	const pad = outputPad(cx.session);
	const transformers = cx.transformers ?? [];
	const component = (renderer: MessageRenderer | undefined) =>
		new CustomMessageComponent(
			message as never,
			renderer,
			getMarkdownTheme(),
			pad,
			transformers,
			entry.id,
			entry.timestamp,
		);
	const protocol = cx.host.registry.messageRenderers.get(message.customType)?.instance;
	if (protocol)
		return {
			kind: "protocol",
			owner: protocol.id,
			ask: (expanded) => renderMessage(cx.host, message, { expanded }),
			build: (lines) => component(lines ? (_m, _o, theme) => linesComponent(lines, theme) : undefined),
		};
	const runner = cx.session.extensionRunner;
	const renderer = runner.getMessageRenderer(message.customType);
	if (!renderer) return undefined;
	const owner = messageRendererOwner(runner, message.customType) ?? "an extension";
	return { kind: "component", owner, build: async (caught) => component(caughtBy(renderer, caught)) };
}

function entryTarget(entry: SessionEntry, cx: TargetContext): DrawTarget | undefined {
	if (entry.type !== "custom") return undefined;
	const pad = outputPad(cx.session);
	// A protocol or native extension's entry renderer answers over the wire first (pi's runner holds the bridge's
	// stand-in for it, which would draw its placeholder).
	const protocol = cx.host.registry.entryRenderers.get(entry.customType)?.instance;
	if (protocol)
		return {
			kind: "protocol",
			owner: protocol.id,
			ask: (expanded) =>
				renderEntry(
					cx.host,
					{ customType: entry.customType, data: entry.data, id: entry.id, timestamp: entry.timestamp },
					{ expanded },
				),
			build: (lines) =>
				customEntryComponent(
					entry,
					((_e, _o, theme) => (lines ? linesComponent(lines, theme) : undefined)) as EntryRenderer,
					pad,
				),
		};
	const runner = cx.session.extensionRunner;
	const renderer = runner.getEntryRenderer(entry.customType);
	if (!renderer) return undefined;
	const owner = entryRendererOwner(runner, entry.customType) ?? "an extension";
	return {
		kind: "component",
		owner,
		build: async (caught) => {
			const component = await customEntryComponent(entry, caughtBy(renderer as EntryRenderer, caught), pad);
			// pi's terminal leaves out an entry its renderer draws as nothing.
			return component.hasContent() ? component : undefined;
		},
	};
}

/** The extension that draws tool `name`, or undefined when pi's own renderers do (the chamber has its own rows). */
export function toolOwner(session: AgentSession, name: string): string | undefined {
	const owner = toolRendererOwner(session.extensionRunner, name, () => session.getToolDefinition(name));
	// pi's built-in extensions (MCP, tool search…) are pi's own too: the chamber's rows show their calls (an MCP
	// call's row names its server).
	return owner?.startsWith(BUILTIN_PATH_PREFIX) ? undefined : owner;
}

interface ToolCallFound {
	name: string;
	args: unknown;
	/** The assistant message stopped (aborted, error) before the tool ran: pi shows the reason as its result. */
	stopped?: string;
	result?: { content: unknown; details?: unknown; isError: boolean };
}

/** A tool call on the session's branch, with its result when it has one. */
function findToolCall(session: AgentSession, callId: string): ToolCallFound | undefined {
	let found: ToolCallFound | undefined;
	for (const entry of session.sessionManager.getBranch()) {
		if (entry.type !== "message") continue;
		const message = entry.message as unknown as Record<string, unknown>;
		if (!found && message.role === "assistant" && Array.isArray(message.content)) {
			for (const part of message.content as Array<Record<string, unknown>>)
				if (part.type === "toolCall" && part.id === callId) {
					found = { name: String(part.name), args: part.arguments ?? {} };
					if (message.stopReason === "aborted" || message.stopReason === "error")
						found.stopped = String(
							message.errorMessage || (message.stopReason === "aborted" ? "Operation aborted" : "Error"),
						);
				}
		} else if (found && message.role === "toolResult" && message.toolCallId === callId) {
			found.result = { content: message.content, details: message.details, isError: message.isError === true };
			break;
		}
	}
	return found;
}

/** The tool's renderers with each `renderCall`/`renderResult` wrapped to note a throw. */
function caughtRenderers(renderers: ToolRenderers | undefined, caught: Caught): ToolRenderers | undefined {
	if (!renderers) return renderers;
	const out = { ...renderers } as ToolRenderers & Record<string, unknown>;
	if (renderers.renderCall) out.renderCall = caughtBy(renderers.renderCall, caught);
	if (renderers.renderResult) out.renderResult = caughtBy(renderers.renderResult, caught);
	return out;
}

const NO_TUI = { requestRender() {} };

function toolTarget(callId: string, cx: TargetContext): DrawTarget | undefined {
	const { session } = cx;
	const call = findToolCall(session, callId);
	if (!call) return undefined;
	const owner = toolOwner(session, call.name);
	if (!owner) return undefined;
	return {
		kind: "component",
		owner,
		build: async (caught) => {
			const base = await withBuiltInToolRenderers(call.name, session.getToolDefinition(call.name));
			const renderers = session.extensionRunner.resolveToolRenderers(call.name, () => base);
			const component = new ToolExecutionComponent(
				call.name,
				callId,
				call.args,
				{ showImages: false, outputPad: outputPad(session) },
				caughtRenderers(renderers, caught) as never,
				NO_TUI as never,
				session.sessionManager.getCwd(),
			);
			if (call.stopped) component.updateResult({ content: [{ type: "text", text: call.stopped }], isError: true });
			else if (call.result) component.updateResult(call.result as never);
			return component;
		},
	};
}

/** What draws the row `id` (an entry id, or `tool:<toolCallId>`), or undefined when nothing of an extension does. */
export function drawTarget(id: string, cx: TargetContext): DrawTarget | undefined {
	if (id.startsWith(TOOL_DRAWING_PREFIX)) return toolTarget(id.slice(TOOL_DRAWING_PREFIX.length), cx);
	const entry = cx.session.sessionManager.getEntry(id);
	if (!entry) return undefined;
	return messageTarget(entry, cx) ?? entryTarget(entry, cx);
}

/** Whether an entry's row is drawn by an extension (the page then asks for its drawing). */
export function entryIsDrawn(entry: SessionEntry, cx: TargetContext): boolean {
	const message = customMessageOf(entry);
	if (message)
		return (
			message.display &&
			(cx.host.registry.messageRenderers.has(message.customType) ||
				cx.session.extensionRunner.getMessageRenderer(message.customType) !== undefined)
		);
	return (
		entry.type === "custom" &&
		(cx.host.registry.entryRenderers.has(entry.customType) ||
			cx.session.extensionRunner.getEntryRenderer(entry.customType) !== undefined)
	);
}
