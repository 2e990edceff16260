/**
 * pi session entries → the chamber's transcript rows. The same projection serves hydration (a whole file)
 * and live appends, so a row looks the same whether a client watched it arrive or loaded it later; its id
 * is the entry's id, which is what lets clients merge replays without duplicates.
 */
import { CHANGES_ENTRY } from "./changes/wire.js";
import { estimateTokens, type SessionEntry } from "@earendil-works/pi-coding-agent";
import { valueTooDeep } from "../extensions/protocol/depth.js";
import { splitAttachedFiles } from "./attached-files.js";
import { normalizeCard } from "./ui/cards.js";
import { unwrapDescriptor } from "./ui/text.js";
import { LIMITS } from "./ui/descriptors.js";
import type { DialogMethod, McpAppRef, SessionSummary, ToolCallView, TranscriptRow, UnansweredReason } from "./wire.js";

/** Custom entry type under which pier records extension errors in the session file. */
export const ERROR_ENTRY = "pier.error";
/** Custom entry type under which pier records a dialog that ended unanswered (timed out, cancelled, aborted). */
export const DIALOG_ENTRY = "pier.dialog";
const DIALOG_METHODS: readonly string[] = ["select", "confirm", "input", "editor", "form"];
const UNANSWERED: readonly string[] = ["timeout", "cancelled", "aborted"];

type Part = { type?: string; text?: string; thinking?: string; id?: string; name?: string; arguments?: unknown };

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return (content as Part[])
		.filter((p) => p?.type === "text" && typeof p.text === "string")
		.map((p) => p.text)
		.join("");
}

function cap(text: string): string {
	return text.length > LIMITS.messageChars ? `${text.slice(0, LIMITS.messageChars)}…` : text;
}

function timeOf(entry: SessionEntry, fallback?: unknown): number {
	return typeof fallback === "number" ? fallback : Date.parse(entry.timestamp) || 0;
}

function messageRow(entry: SessionEntry & { type: "message" }): TranscriptRow | undefined {
	const message = entry.message as unknown as Record<string, unknown>;
	const timestamp = timeOf(entry, message.timestamp);
	switch (message.role) {
		case "user": {
			const images = Array.isArray(message.content)
				? (message.content as Part[]).filter((p) => p?.type === "image").length
				: 0;
			const { text, files } = splitAttachedFiles(textOf(message.content));
			return {
				kind: "user",
				id: entry.id,
				text: cap(text),
				...(files.length ? { files: files.map((f) => ({ ...f, text: cap(f.text) })) } : {}),
				...(images ? { images } : {}),
				timestamp,
			};
		}
		case "bashExecution":
			return {
				kind: "bash",
				id: entry.id,
				command: cap(String(message.command ?? "")),
				output: cap(typeof message.output === "string" ? message.output : ""),
				...(typeof message.exitCode === "number" ? { exitCode: message.exitCode } : {}),
				cancelled: message.cancelled === true,
				truncated: message.truncated === true,
				excludeFromContext: message.excludeFromContext === true,
				timestamp,
			};
		case "assistant": {
			const parts = (Array.isArray(message.content) ? message.content : []) as Part[];
			const thinking = parts
				.filter((p) => p.type === "thinking" && typeof p.thinking === "string")
				.map((p) => p.thinking)
				.join("");
			const toolCalls: ToolCallView[] = parts
				.filter((p) => p.type === "toolCall")
				.map((p) => ({ id: String(p.id), name: String(p.name), args: p.arguments ?? {} }));
			return {
				kind: "assistant",
				id: entry.id,
				text: cap(textOf(parts)),
				...(thinking ? { thinking: cap(thinking) } : {}),
				toolCalls,
				...(typeof message.model === "string" ? { model: `${message.provider}/${message.model}` } : {}),
				...(typeof message.errorMessage === "string" ? { errorMessage: message.errorMessage } : {}),
				timestamp,
			};
		}
		case "toolResult":
			return {
				kind: "tool_result",
				id: entry.id,
				toolCallId: String(message.toolCallId),
				toolName: String(message.toolName),
				text: cap(textOf(message.content)),
				isError: message.isError === true,
				...editDiffOf(message),
				...mcpAppOf(message),
				timestamp,
			};
		case "custom":
			return customMessageRow(entry.id, String(message.customType), message.content, message.details);
		case "system":
			// pi's system prompt and tools, which pi keeps in the session and shows nowhere as a message.
			return undefined;
		default:
			return { kind: "custom", id: entry.id, customType: String(message.role), content: message };
	}
}

/** An MCP tool's result that pier stamped with its app (agent/mcp/apps.ts): `details.{server, tool, mcpApp}`. */
function mcpAppOf(message: Record<string, unknown>): { mcpApp?: McpAppRef } {
	const details = message.details as
		| { server?: unknown; tool?: unknown; mcpApp?: { resourceUri?: unknown } }
		| undefined;
	const uri = details?.mcpApp?.resourceUri;
	if (typeof details?.server !== "string" || typeof details.tool !== "string" || typeof uri !== "string") return {};
	if (!uri.startsWith("ui://")) return {};
	return { mcpApp: { server: details.server, tool: details.tool, resourceUri: uri } };
}

/** pi's edit tool reports what it changed as `details.diff`, which pi's terminal draws coloured. */
function editDiffOf(message: Record<string, unknown>): { diff?: string } {
	const diff = (message.details as { diff?: unknown } | undefined)?.diff;
	return message.toolName === "edit" && typeof diff === "string" && diff ? { diff: cap(diff) } : {};
}

function customMessageRow(id: string, customType: string, content: unknown, details: unknown): TranscriptRow {
	if (customType === "pichamber.ui") {
		const card = normalizeCard(unwrapDescriptor(details ?? safeJson(textOf(content))));
		if (card) return { kind: "card", id, source: "message", card };
	}
	return { kind: "custom", id, customType, content: details === undefined ? content : { content, details } };
}

function safeJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

/**
 * How deep a session entry's content may nest in the chamber. Protocol extensions never get near it (their
 * frames stop at 128, see protocol/depth.ts); in-process pi extensions call pi's appendEntry directly and are
 * trusted code, so they get room for deep but legitimate data (an AST, say) while staying far below the
 * ~4,000 levels at which JSON.stringify overflows the stack in the view and the event stream.
 */
export const ENTRY_DEPTH = 1_000;

/** The row an entry shows as, or undefined for entries that are bookkeeping (model changes, labels…). */
export function rowOf(entry: SessionEntry): TranscriptRow | undefined {
	// The entry wraps its content in one more level. An over-deep entry can only come from a session file
	// written some other way (the chamber refuses them as they are appended); it must not break the view.
	if (valueTooDeep(entry, ENTRY_DEPTH + 1)) {
		const what = "customType" in entry && typeof entry.customType === "string" ? `"${entry.customType}" ` : "";
		return {
			kind: "error",
			id: entry.id,
			message: `a ${entry.type} entry ${what}nests deeper than ${ENTRY_DEPTH} levels and is not shown`,
			source: "chamber",
			timestamp: timeOf(entry),
		};
	}
	switch (entry.type) {
		case "message":
			return messageRow(entry);
		case "custom_message":
			// Issue 33, Changes: a revert's row (changes/actions.ts).
			if (entry.customType === CHANGES_ENTRY)
				return { kind: "changes", id: entry.id, text: textOf(entry.content).slice(0, 4000), timestamp: timeOf(entry) };
			return customMessageRow(entry.id, entry.customType, entry.content, entry.details);
		case "custom": {
			const data = entry.data as Record<string, unknown> | undefined;
			if (entry.customType === ERROR_ENTRY) {
				return {
					kind: "error",
					id: entry.id,
					message: String(data?.message ?? "extension error"),
					...(typeof data?.source === "string" ? { source: data.source } : {}),
					timestamp: timeOf(entry),
				};
			}
			if (
				entry.customType === DIALOG_ENTRY &&
				DIALOG_METHODS.includes(String(data?.method)) &&
				UNANSWERED.includes(String(data?.reason))
			) {
				return {
					kind: "dialog",
					id: entry.id,
					method: data?.method as DialogMethod,
					title: String(data?.title ?? "").slice(0, LIMITS.titleChars),
					reason: data?.reason as UnansweredReason,
					timestamp: timeOf(entry),
				};
			}
			if (entry.customType === "pichamber.ui") {
				const card = normalizeCard(unwrapDescriptor(data));
				if (card) return { kind: "card", id: entry.id, source: "entry", card };
			}
			if (entry.customType === "pichamber.app") {
				const app = unwrapDescriptor(data) as Record<string, unknown> | undefined;
				const appId = String(app?.appId ?? app?.id ?? "");
				return {
					kind: "app",
					id: entry.id,
					appId,
					...(typeof app?.title === "string" ? { title: app.title.slice(0, LIMITS.titleChars) } : {}),
					...(app?.removed === true ? { removed: true } : {}),
				};
			}
			return { kind: "custom", id: entry.id, customType: entry.customType, content: entry.data };
		}
		case "compaction":
			return {
				kind: "compaction",
				id: entry.id,
				summary: cap(String(entry.summary ?? "")),
				tokensBefore: typeof entry.tokensBefore === "number" ? entry.tokensBefore : 0,
				timestamp: timeOf(entry),
			};
		case "branch_summary":
			return {
				kind: "branch_summary",
				id: entry.id,
				summary: cap(String(entry.summary ?? "")),
				timestamp: timeOf(entry),
			};
		default:
			return undefined;
	}
}

/** `branch`: the path from the root to the leaf (pi's getBranch()), which compaction rows read their "after" from. */
export function rowsOf(branch: readonly SessionEntry[]): TranscriptRow[] {
	const rows: TranscriptRow[] = [];
	for (const entry of branch) {
		const row = rowOf(entry);
		if (row) rows.push(row.kind === "compaction" ? withTokensAfter(row, entry, branch) : row);
	}
	return rows;
}

/** A page of rows and how many rows come before it. */
export interface RowPage {
	rows: TranscriptRow[];
	olderRows: number;
}

/**
 * What a compaction left in context, by pi's estimate (`estimateTokens`, chars / 4): its summary and the entries it kept, from
 * `firstKeptEntryId` up to the compaction. An estimate like pi's own until the next answer reports the real count.
 */
export function withTokensAfter(
	row: Extract<TranscriptRow, { kind: "compaction" }>,
	entry: SessionEntry,
	branch: readonly SessionEntry[],
): TranscriptRow {
	if (entry.type !== "compaction") return row;
	const end = branch.indexOf(entry);
	const start = branch.findIndex((e) => e.id === entry.firstKeptEntryId);
	let tokens = Math.ceil(String(entry.summary ?? "").length / 4);
	if (start >= 0 && end > start) {
		for (const kept of branch.slice(start, end)) if (kept.type === "message") tokens += estimateTokens(kept.message);
	}
	return { ...row, tokensAfter: tokens };
}

/**
 * A page of rows: the last `limit` rows (all when no limit), or the last `limit` before the row `before`.
 * `olderRows` counts what remains before the page.
 */
export function pageOf(
	rows: readonly TranscriptRow[],
	{ limit, before }: { limit?: number; before?: string },
): RowPage {
	let end = rows.length;
	if (before !== undefined) {
		const at = rows.findIndex((r) => r.id === before);
		end = Math.max(0, at);
	}
	const start = limit === undefined ? 0 : Math.max(0, end - limit);
	return { rows: rows.slice(start, end), olderRows: start };
}

/** A view with only its latest `limit` rows (unchanged without a limit). */
export function latestRows<V extends { rows: TranscriptRow[]; olderRows?: number }>(view: V, limit?: number): V {
	if (limit === undefined || view.rows.length <= limit) return view;
	const page = pageOf(view.rows, { limit });
	return { ...view, rows: page.rows, olderRows: page.olderRows };
}

/** What a session's list entry needs from its entries (a file reader counts them without parsing each). */
export interface EntryFacts {
	messageCount: number;
	/** The last entry's timestamp. */
	modifiedAt?: string;
	firstUser?: SessionEntry;
}

export function entryFacts(entries: readonly SessionEntry[]): EntryFacts {
	const messages = entries.filter((e) => e.type === "message");
	const firstUser = messages.find((e) => e.type === "message" && e.message.role === "user");
	return {
		messageCount: messages.length,
		...(entries.length > 0 ? { modifiedAt: entries.at(-1)!.timestamp } : {}),
		...(firstUser ? { firstUser } : {}),
	};
}

/** A session's list entry from its header and entries' facts: one definition for live sessions and files alike. */
export function summaryOf(
	header: { id: string; cwd: string; timestamp: string; parentSession?: string },
	facts: EntryFacts,
	state: { name?: string; live: boolean; streaming: boolean },
): SessionSummary {
	const first = facts.firstUser ? rowOf(facts.firstUser) : undefined;
	return {
		id: header.id,
		...(state.name ? { name: state.name } : {}),
		cwd: header.cwd,
		createdAt: header.timestamp,
		modifiedAt: forkAware(header, facts.modifiedAt),
		messageCount: facts.messageCount,
		...(first?.kind === "user" ? { firstMessage: first.text.slice(0, 200) } : {}),
		live: state.live,
		streaming: state.streaming,
		...forkedFromOf(header.parentSession),
	};
}

/**
 * A fork copies its original's entries with their times: its age is its own, from its header, until it has
 * newer entries.
 */
function forkAware(header: { timestamp: string; parentSession?: string }, lastEntry: string | undefined): string {
	if (!lastEntry) return header.timestamp;
	if (!header.parentSession) return lastEntry;
	return Date.parse(lastEntry) > Date.parse(header.timestamp) ? lastEntry : header.timestamp;
}

/** pi names a session's file `<time>_<id>.jsonl`; its header's `parentSession` is that file's path. */
export function forkedFromOf(parentSession: unknown): { forkedFrom?: string } {
	if (typeof parentSession !== "string") return {};
	const id = /_([^_/\\]+)\.jsonl$/.exec(parentSession)?.[1];
	return id ? { forkedFrom: id } : {};
}
