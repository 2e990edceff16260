/**
 * A session's view straight from its pi JSONL file, without starting the session: what a browser needs to
 * show a session it opens (the transcript, panels and apps). Starting the session (its runtime and
 * extensions) waits until something needs it: the event stream or an action.
 *
 * A long session is mostly message lines, and a browser asks for its latest few hundred rows. So a message
 * line is known by the fields pi writes first (type, id, parentId, timestamp) and parsed in full only when
 * its row is asked for; every other line is parsed as it is read (the panels, name and model need them).
 * A 100,000-entry file (84 MiB) hydrated with `rows=300` in ~1.8 s when every line was parsed and every row
 * built; see `hydrate.*` in bench/chamber.ts.
 */
import { readFileSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "@earendil-works/pi-coding-agent";
import { pageOf, type RowPage, rowOf, rowsOf, summaryOf } from "./transcript.js";
import { SessionUi } from "./ui/session-ui.js";
import type { SessionView } from "./wire.js";

/** pi's current session format; older files go through pi's own migration (by opening the session). */
const CURRENT_VERSION = 3;

/**
 * The start of a message line as pi's SessionManager writes it (`{type, id, parentId, timestamp, message}`
 * in that order), matched on the line's first bytes read as Latin-1: the captured fields must be printable
 * ASCII without quotes or backslashes, so reading bytes as characters cannot change them. A line that does
 * not start this way is parsed in full, so the shortcut never guesses.
 */
const MESSAGE_PREFIX =
	/^\{"type":"message","id":"([\x20\x21\x23-\x5b\x5d-\x7e]+)","parentId":(?:null|"([\x20\x21\x23-\x5b\x5d-\x7e]+)"),"timestamp":"([\x20\x21\x23-\x5b\x5d-\x7e]+)"/;
/**
 * pi's prefix is 96 bytes (8-character ids, 24-character timestamps); 128 leaves room for longer ids, and a
 * longer prefix only means a full parse. Decoding more is garbage: 100,000 lines × the slice.
 */
const PREFIX_BYTES = 128;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;

/** One entry of the file: parsed, or (a message line) its fields from the prefix and where its text is. */
interface FileEntry {
	type: string;
	id: string;
	parentId: string | null;
	timestamp: string;
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

function parseLine(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined; // pi skips malformed lines too
	}
}

function parsedEntry(line: string): FileEntry | undefined {
	const entry = parseLine(line) as SessionEntry | undefined;
	if (!entry || typeof entry !== "object") return undefined;
	return { type: entry.type, id: entry.id, parentId: entry.parentId, timestamp: entry.timestamp, entry };
}

/**
 * The file's header and entries, or undefined when it is not a current-version pi session file. `eager`
 * parses every line (the fallback when a line kept for later turns out malformed).
 */
export function readSessionFile(file: string, eager = false): SessionFile | undefined {
	// Bytes, not a string: decoding all of an 84 MiB file as UTF-8 took longer than everything else together.
	const bytes = readFileSync(file);
	let header: SessionHeader | undefined;
	const entries: FileEntry[] = [];
	for (let start = 0; start < bytes.length; ) {
		let end = bytes.indexOf(NEWLINE, start);
		if (end === -1) end = bytes.length;
		const lineStart = start;
		start = end + 1;
		const prefix =
			!eager && header && bytes[lineStart] === OPEN_BRACE
				? MESSAGE_PREFIX.exec(bytes.toString("latin1", lineStart, Math.min(end, lineStart + PREFIX_BYTES)))
				: null;
		if (prefix) {
			entries.push({
				type: "message",
				id: prefix[1]!,
				parentId: prefix[2] ?? null,
				timestamp: prefix[3]!,
				start: lineStart,
				end,
			});
			continue;
		}
		const line = bytes.toString("utf8", lineStart, end);
		if (!line.trim()) continue;
		if (header) {
			const entry = parsedEntry(line);
			if (entry) entries.push(entry);
			continue;
		}
		const parsed = parseLine(line) as { type?: string } | undefined;
		if (parsed === undefined) continue;
		if (parsed?.type !== "session") return undefined;
		header = parsed as SessionHeader;
		if (header.version !== CURRENT_VERSION) return undefined;
	}
	return header ? { header, entries, bytes } : undefined;
}

function entryOf(e: FileEntry, bytes: Buffer): SessionEntry {
	if (!e.entry) {
		const parsed = parseLine(bytes.toString("utf8", e.start, e.end)) as SessionEntry | undefined;
		if (!parsed || typeof parsed !== "object") throw new LateMalformedLine();
		e.entry = parsed;
	}
	return e.entry;
}

/** The path from the root to the last entry (pi's leaf after opening a file). */
function branchOf(entries: readonly FileEntry[]): FileEntry[] {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const path: FileEntry[] = [];
	let current = entries.at(-1);
	while (current) {
		path.push(current);
		current = current.parentId ? byId.get(current.parentId) : undefined;
	}
	return path.reverse();
}

/** Entry types `rowOf` shows (every other type is bookkeeping): a row count needs no parsing. */
const ROW_TYPES = new Set(["message", "custom_message", "custom", "compaction", "branch_summary"]);

/** `pageOf(rowsOf(branch), page)`, building only the rows on the page. */
function pageOfBranch(branch: readonly FileEntry[], bytes: Buffer, page: { limit?: number; before?: string }): RowPage {
	if (page.limit === undefined) return pageOf(rowsOf(branch.map((e) => entryOf(e, bytes))), page);
	const shown = branch.filter((e) => ROW_TYPES.has(e.type));
	let end = shown.length;
	if (page.before !== undefined)
		end = Math.max(
			0,
			shown.findIndex((e) => e.id === page.before),
		);
	const start = Math.max(0, end - page.limit);
	const rows = shown.slice(start, end).map((e) => rowOf(entryOf(e, bytes)));
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
	for (const e of entries) {
		const entry = e.entry;
		if (e.type === "message") {
			messageCount++;
			if (
				!firstUser &&
				entryOf(e, bytes).type === "message" &&
				(e.entry as { message: { role: string } }).message.role === "user"
			)
				firstUser = e.entry;
		} else if (entry?.type === "custom") ui.applyEntry(entry.customType, entry.data, false);
		else if (entry?.type === "session_info") name = entry.name;
		else if (entry?.type === "model_change") model = `${entry.provider}/${entry.modelId}`;
		else if (entry?.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
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
		...(model ? { model } : {}),
		thinkingLevel,
		streaming: false,
		seq: 0,
	};
}

/**
 * The view of a session file with the page of rows asked for (all rows without a limit; `olderRows` counts
 * the rows before the page), or undefined when the file is not a current-version pi session.
 */
export function viewOfFile(
	file: string,
	page: { limit?: number; before?: string } = {},
): (SessionView & RowPage) | undefined {
	const parsed = readSessionFile(file);
	if (!parsed) return undefined;
	try {
		return build(parsed, page);
	} catch (error) {
		if (!(error instanceof LateMalformedLine)) throw error;
		// A message line with a good start and a bad body (a torn write): read as pi does, skipping it.
		const eager = readSessionFile(file, true);
		return eager ? build(eager, page) : undefined;
	}
}
