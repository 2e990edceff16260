/**
 * The chamber's session list without reading every session file on every request. pi's `listAll` parses
 * each file in full (1,000 files of 100 KB took ~750 ms a listing, and a live session appending to one file
 * made its whole project directory be read again). Here each file's entry is kept while the file's size and
 * modification time are unchanged, and a file that changed is read by its lines' first and last bytes
 * (session-lines.ts) rather than parsed: the same fields pi's `buildSessionInfo` gives, for the files pi
 * writes.
 */
import { existsSync, type Stats } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { agentDir } from "../agent/paths.js";
import { splitAttachedFiles } from "./attached-files.js";
import { forEachLine, headerOf, lineText, messageLine, messageTime, parseLine } from "./session-lines.js";

/** What the chamber lists of a session file: pi's `SessionInfo` without the text of every message. */
export interface StoredSession {
	path: string;
	id: string;
	cwd: string;
	name?: string;
	created: Date;
	modified: Date;
	messageCount: number;
	/** pi's placeholder "(no messages)" when no user message has text, as pi's listing says. */
	firstMessage: string;
	/** A fork's original file (pi's header `parentSession`). */
	parentSession?: string;
}

/** Files stat-ed and read at once on a cold listing (pi reads 10 at a time). */
const READ_CONCURRENCY = 8;

type Message = { role?: unknown; content?: unknown; timestamp?: unknown };

/** pi's extractTextContent: a string, or the text parts joined by spaces. */
function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((p: { type?: string }) => p?.type === "text")
		.map((p: { text?: string }) => p.text)
		.join(" ");
}

/** The listing's fields of one file, as pi's `buildSessionInfo` computes them; undefined where pi gives null. */
export function storedSessionOf(path: string, bytes: Buffer, stats: Pick<Stats, "mtime">): StoredSession | undefined {
	let header: Record<string, unknown> | undefined;
	let notSession = false;
	let name: string | undefined;
	let messageCount = 0;
	let firstMessage = "";
	let lastActivity: number | undefined;
	const active = (time: number) => {
		lastActivity = Math.max(lastActivity ?? 0, time);
	};
	/** A parsed message entry: what pi's loop does with it. */
	const fromMessage = (entry: { timestamp?: unknown; message?: Message }) => {
		messageCount++;
		const message = entry.message;
		if (!message || typeof message.role !== "string" || !("content" in message)) return;
		if (message.role !== "user" && message.role !== "assistant") return;
		if (typeof message.timestamp === "number") active(message.timestamp);
		else if (typeof entry.timestamp === "string") {
			const t = new Date(entry.timestamp).getTime();
			if (!Number.isNaN(t)) active(t);
		}
		// The user's words: `@file` attachments come before them in the text pi stores.
		if (!firstMessage && message.role === "user") firstMessage = splitAttachedFiles(textOf(message.content)).text;
	};
	const lastLine = bytes.lastIndexOf(0x0a, bytes.length - 2) + 1;
	forEachLine(bytes, (start, end) => {
		if (notSession) return;
		const shape = header && start < lastLine ? messageLine(bytes, start, end) : undefined;
		// A line in pi's shape: its role and time are enough, unless it may hold the first user message.
		// (The last line is always parsed: a torn write leaves it malformed, and pi skips it.)
		if (shape && shape.role !== undefined && !(shape.role === "user" && !firstMessage)) {
			if (shape.role !== "user" && shape.role !== "assistant") {
				messageCount++;
				return;
			}
			const time = messageTime(bytes, start, end);
			if (time !== undefined) {
				messageCount++;
				active(time);
				return;
			}
		}
		const line = lineText(bytes, start, end);
		if (!header) {
			const first = headerOf(line);
			if (first === "not-session") notSession = true;
			else if (first !== "skip") header = first as unknown as Record<string, unknown>;
			return;
		}
		if (!line.trim()) return;
		const entry = parseLine(line) as { type?: unknown; name?: unknown } | undefined;
		if (!entry || typeof entry !== "object") return;
		if (entry.type === "session_info") name = (typeof entry.name === "string" ? entry.name.trim() : "") || undefined;
		else if (entry.type === "message") fromMessage(entry as { message?: Message });
	});
	if (!header || notSession) return undefined;
	const headerTime = typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : Number.NaN;
	const parentSession = typeof header.parentSession === "string" ? header.parentSession : undefined;
	// A fork copies its original's entries with their times; until it has newer ones, its age is its header's.
	if (parentSession && lastActivity !== undefined && headerTime > lastActivity) lastActivity = headerTime;
	const modified =
		lastActivity !== undefined && lastActivity > 0
			? new Date(lastActivity)
			: !Number.isNaN(headerTime)
				? new Date(headerTime)
				: stats.mtime;
	return {
		path,
		id: header.id as string,
		cwd: typeof header.cwd === "string" ? header.cwd : "",
		...(name ? { name } : {}),
		created: new Date(header.timestamp as string),
		modified,
		messageCount,
		firstMessage: firstMessage || "(no messages)",
		...(parentSession ? { parentSession } : {}),
	};
}

interface Known {
	size: number;
	mtimeMs: number;
	session: StoredSession | undefined;
}

export class SessionIndex {
	private readonly byPath = new Map<string, Known>();

	/** `onRead` hears each file actually read (not answered from what is kept). */
	constructor(private readonly onRead?: (path: string) => void) {}

	/** Every session of every project, newest first, as pi's `SessionManager.listAll` answers. */
	async listAll(): Promise<StoredSession[]> {
		const root = join(agentDir(), "sessions");
		if (!existsSync(root)) return [];
		const paths: string[] = [];
		for (const entry of await readdir(root, { withFileTypes: true })) {
			if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
			const dir = join(root, entry.name);
			try {
				for (const name of await readdir(dir)) if (name.endsWith(".jsonl")) paths.push(join(dir, name));
			} catch {
				// A directory removed or unreadable mid-listing lists nothing, as in pi.
			}
		}
		const seen = new Set(paths);
		for (const path of this.byPath.keys()) if (!seen.has(path)) this.byPath.delete(path);
		const candidates = await inParallel(paths, async (path) => ({
			path,
			stats: await stat(path).catch(() => undefined),
		}));
		// pi reads the files newest first by modification time, then by name, and its final sort by activity is
		// stable: sessions with the same activity time keep this order.
		candidates.sort(
			(a, b) =>
				(b.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) - (a.stats?.mtimeMs ?? Number.NEGATIVE_INFINITY) ||
				basename(b.path).localeCompare(basename(a.path)),
		);
		const read = await inParallel(candidates, (c) => this.read(c.path, c.stats));
		const all = read.filter((s): s is StoredSession => s !== undefined);
		return all.sort((a, b) => b.modified.getTime() - a.modified.getTime());
	}

	private async read(path: string, stats: Stats | undefined): Promise<StoredSession | undefined> {
		if (!stats) {
			this.byPath.delete(path);
			return undefined;
		}
		const known = this.byPath.get(path);
		if (known?.size === stats.size && known.mtimeMs === stats.mtimeMs) return known.session;
		let session: StoredSession | undefined;
		this.onRead?.(path);
		try {
			session = storedSessionOf(path, await readFile(path), stats);
		} catch {
			session = undefined; // gone or unreadable between the stat and the read: pi lists nothing for it
		}
		// Keyed by the stat taken before the read: a write in between only makes the next listing read again.
		this.byPath.set(path, { size: stats.size, mtimeMs: stats.mtimeMs, session });
		return session;
	}
}

/** `map` over `items`, READ_CONCURRENCY at a time, answers in the items' order. */
async function inParallel<T, R>(items: T[], map: (item: T) => Promise<R>): Promise<R[]> {
	const results: R[] = new Array(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const at = next++;
			results[at] = await map(items[at]!);
		}
	};
	await Promise.all(Array.from({ length: READ_CONCURRENCY }, worker));
	return results;
}
