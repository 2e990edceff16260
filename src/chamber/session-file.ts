/**
 * A session's view straight from its pi JSONL file, without starting the session: what a browser needs to
 * show a session it opens (the transcript, panels and apps). Starting the session (its runtime and
 * extensions) waits until something needs it: the event stream or an action.
 *
 * A long session is mostly message lines, and a browser asks for its latest few hundred rows. So a message
 * line is known by its id, parent and time (session-lines.ts) and parsed in full only when its row is asked
 * for; every other line is parsed as it is read (the panels, name and model need them).
 * A 100,000-entry file (84 MiB) hydrated with `rows=300` in ~1.8 s when every line was parsed and every row
 * built; see `hydrate.*` in bench/chamber.ts.
 */
import { readFileSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "@earendil-works/pi-coding-agent";
import { pageOf, type RowPage, rowOf, rowsOf, summaryOf } from "./transcript.js";
import {
	CURRENT_VERSION,
	forEachLine,
	headerOf,
	lineText,
	messageLine,
	messageUsage,
	parseLine,
} from "./session-lines.js";
import { type AssistantUsage, assistantUsages, otherUsages, usageOf } from "./usage.js";
import { SessionUi } from "./ui/session-ui.js";
import type { SessionView } from "./wire.js";

/** One entry of the file: parsed, or (a message line) its fields from the prefix and where its text is. */
interface FileEntry {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
	/** A message line's role, read from its prefix. */
	role?: string;
	entry?: SessionEntry;
	/** The line's byte range in `SessionFile.bytes`, while it is not parsed. */
	start?: number;
	end?: number;
}

export interface SessionFile {
	header: SessionHeader;
	entries: FileEntry[];
	bytes: Buffer;
}

/** Thrown when a line kept for later turns out malformed: the caller reads the file again in full. */
class LateMalformedLine extends Error {}

function parsedEntry(line: string): FileEntry | undefined {
	const entry = parseLine(line) as SessionEntry | undefined;
	if (!entry || typeof entry !== "object") return undefined;
	return { type: entry.type, id: entry.id, parentId: entry.parentId, timestamp: entry.timestamp, entry };
}

/**
 * The file's header and entries, or undefined when it is not a current-version pi session file. `eager`
 * parses every line (the fallback when a line kept for later turns out malformed).
 */
function parseSessionFile(bytes: Buffer, eager: boolean): SessionFile | undefined {
	let header: SessionHeader | undefined;
	let notSession = false;
	const entries: FileEntry[] = [];
	forEachLine(bytes, (start, end) => {
		if (notSession) return;
		const message = header && !eager ? messageLine(bytes, start, end) : undefined;
		if (message) {
			entries.push({
				type: "message",
				id: message.id,
				parentId: message.parentId,
				timestamp: message.timestamp,
				...(message.role !== undefined ? { role: message.role } : {}),
				start,
				end,
			});
			return;
		}
		const line = lineText(bytes, start, end);
		if (header) {
			if (!line.trim()) return;
			const entry = parsedEntry(line);
			if (entry) entries.push(entry);
			return;
		}
		const first = headerOf(line);
		if (first === "skip") return;
		if (first === "not-session" || first.version !== CURRENT_VERSION) notSession = true;
		else header = first;
	});
	return header && !notSession ? { header, entries, bytes } : undefined;
}

function entryOf(e: FileEntry, bytes: Buffer): SessionEntry {
	if (!e.entry) {
		const parsed = parseLine(lineText(bytes, e.start!, e.end!)) as SessionEntry | undefined;
		if (!parsed || typeof parsed !== "object") throw new LateMalformedLine();
		e.entry = parsed;
	}
	return e.entry;
}

/**
 * The path from the root to the last entry (pi's leaf after opening a file). pi appends each entry under
 * the one before it, except after a branch, so the parent is looked for just above its child first; a map
 * of every id is built only when that fails. (Ids are unique in a file pi wrote; a hand-made file with a
 * duplicated id may resolve a parent to an earlier twin than pi's last-one-wins index would.)
 */
function branchOf(entries: readonly FileEntry[]): FileEntry[] {
	const NEARBY = 8;
	let byId: Map<string, number> | undefined;
	const path: FileEntry[] = [];
	let at = entries.length - 1;
	while (at >= 0) {
		const current = entries[at]!;
		path.push(current);
		const parent = current.parentId;
		if (!parent) break;
		let found = -1;
		for (let j = at - 1; j >= Math.max(0, at - NEARBY); j--) {
			if (entries[j]!.id === parent) {
				found = j;
				break;
			}
		}
		if (found === -1) {
			byId ??= new Map(entries.map((e, i) => [e.id, i]));
			found = byId.get(parent) ?? -1;
			// A parent later in the file than its child cannot be pi's; stop as a missing parent does.
			if (found >= at) found = -1;
		}
		at = found;
	}
	return path.reverse();
}

/** Entry types `rowOf` shows (every other type is bookkeeping): a row count needs no parsing. */
const ROW_TYPES = new Set(["message", "custom_message", "custom", "compaction", "branch_summary"]);

/** Whether `rowOf` shows the entry: of messages, all but pi's system message (its role is in a pi line's prefix). */
function shown(e: FileEntry, bytes: Buffer): boolean {
	if (!ROW_TYPES.has(e.type)) return false;
	if (e.type !== "message") return true;
	const role = e.role ?? (entryOf(e, bytes) as { message?: { role?: unknown } }).message?.role;
	return role !== "system";
}

/** `pageOf(rowsOf(branch), page)`, building only the rows on the page. */
function pageOfBranch(branch: readonly FileEntry[], bytes: Buffer, page: { limit?: number; before?: string }): RowPage {
	if (page.limit === undefined) return pageOf(rowsOf(branch.map((e) => entryOf(e, bytes))), page);
	const rowEntries = branch.filter((e) => shown(e, bytes));
	let end = rowEntries.length;
	if (page.before !== undefined)
		end = Math.max(
			0,
			rowEntries.findIndex((e) => e.id === page.before),
		);
	const start = Math.max(0, end - page.limit);
	const rows = rowEntries.slice(start, end).map((e) => rowOf(entryOf(e, bytes)));
	if (rows.some((row) => row === undefined)) throw new Error("a row type without a row: ROW_TYPES is out of date");
	return { rows: rows as RowPage["rows"], olderRows: start };
}

function build(
	{ header, entries, bytes }: SessionFile,
	page: { limit?: number; before?: string },
): SessionView & RowPage {
	const ui = new SessionUi(() => {});
	let name: string | undefined;
	let model: string | undefined;
	let thinkingLevel = "off";
	let firstUser: SessionEntry | undefined;
	let messageCount = 0;
	const usages: AssistantUsage[] = [];
	const others: AssistantUsage[] = [];
	for (const e of entries) {
		const entry = e.entry;
		if (e.type === "message") {
			messageCount++;
			// The role from the line's prefix spares parsing lines that cannot be the first user message.
			if (!firstUser && (e.role === undefined || e.role === "user")) {
				const parsed = entryOf(e, bytes);
				if (parsed.type === "message" && parsed.message.role === "user") firstUser = parsed;
			}
			if (e.entry || e.role === undefined) {
				const parsed = entryOf(e, bytes);
				usages.push(...assistantUsages([parsed]));
				others.push(...otherUsages([parsed]));
			} else if (e.role === "assistant") {
				const usage = messageUsage(bytes, e.start!, e.end!);
				if (usage && typeof usage === "object") usages.push(usage as AssistantUsage);
				else usages.push(...assistantUsages([entryOf(e, bytes)]));
			} else if (e.role === "toolResult" && messageUsage(bytes, e.start!, e.end!) !== undefined) {
				// A "usage" key may also sit in a tool's details: only the parsed message's own counts.
				others.push(...otherUsages([entryOf(e, bytes)]));
			}
		} else if (entry?.type === "custom") ui.applyEntry(entry.customType, entry.data, false);
		else if (entry?.type === "session_info") name = entry.name;
		else if (entry?.type === "model_change") model = `${entry.provider}/${entry.modelId}`;
		else if (entry?.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
		else if (entry) others.push(...otherUsages([entry]));
	}
	const session = summaryOf(
		header,
		{ messageCount, modifiedAt: entries.at(-1)?.timestamp, ...(firstUser ? { firstUser } : {}) },
		{ ...(name ? { name } : {}), live: false, streaming: false },
	);
	const { rows, olderRows } = pageOfBranch(branchOf(entries), bytes, page);
	return {
		session,
		rows,
		olderRows,
		ui: ui.view(),
		// Commands are known once the session runs; the stream's snapshot brings them.
		commands: [],
		// The context window is the model's, known once the session runs.
		usage: usageOf(usages, undefined, 0, others),
		queue: { steering: [], followUp: [] },
		...(model ? { model } : {}),
		thinkingLevel,
		streaming: false,
		seq: 0,
	};
}

/** One entry of a session file by id, read without opening the session (undefined when there is none). */
export function entryOfFile(file: string, id: string): SessionEntry | undefined {
	const parsed = parseSessionFile(readFileSync(file), true);
	// pi's index keeps the last of twin ids.
	return parsed?.entries.findLast((e) => e.id === id)?.entry;
}

/**
 * The view of a session file with the page of rows asked for (all rows without a limit; `olderRows` counts
 * the rows before the page), or undefined when the file is not a current-version pi session.
 */
export function viewOfFile(
	file: string,
	page: { limit?: number; before?: string } = {},
): (SessionView & RowPage) | undefined {
	const bytes = readFileSync(file);
	const parsed = parseSessionFile(bytes, false);
	if (!parsed) return undefined;
	try {
		return build(parsed, page);
	} catch (error) {
		if (!(error instanceof LateMalformedLine)) throw error;
		// A message line with a good start and a bad body (a torn write): read as pi does, skipping it.
		const eager = parseSessionFile(bytes, true);
		return eager ? build(eager, page) : undefined;
	}
}
