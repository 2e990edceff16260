/**
 * Search over every message's text, as pi's `/resume` searches. A session's text is read once and kept while
 * its file's size and modification time are unchanged, so a keystroke in the list's search box reads only the
 * files that changed since the last search, not every file.
 */
import { readFile, stat } from "node:fs/promises";
import { forEachLine, lineText, parseLine } from "./session-lines.js";

/** Text kept per session: enough for any conversation a person searches, bounded for a runaway log. */
const MAX_TEXT = 1024 * 1024;

interface Known {
	size: number;
	mtimeMs: number;
	text: string;
}

/** The lowercased text of a session file's user and assistant messages (text parts only), one per line. */
export function messageTextOf(bytes: Buffer): string {
	const parts: string[] = [];
	let length = 0;
	forEachLine(bytes, (start, end) => {
		if (length >= MAX_TEXT) return;
		const entry = parseLine(lineText(bytes, start, end)) as
			| { type?: unknown; message?: { role?: unknown; content?: unknown } }
			| undefined;
		const message = entry?.type === "message" ? entry.message : undefined;
		if (message?.role !== "user" && message?.role !== "assistant") return;
		const { content } = message;
		const text =
			typeof content === "string"
				? content
				: Array.isArray(content)
					? content
							.filter((p: { type?: unknown }) => p?.type === "text")
							.map((p: { text?: unknown }) => String(p.text ?? ""))
							.join(" ")
					: "";
		if (!text) return;
		parts.push(text.toLowerCase());
		length += text.length;
	});
	return parts.join("\n").slice(0, MAX_TEXT);
}

export class SessionSearch {
	private readonly byPath = new Map<string, Known>();

	/** `onRead` hears each file actually read (tests count them). */
	constructor(private readonly onRead?: (path: string) => void) {}

	/** Whether any message of the session at `path` contains `query` (lowercased already). */
	async matches(path: string, query: string): Promise<boolean> {
		return (await this.textOf(path)).includes(query);
	}

	/** Forget sessions no longer listed. */
	keepOnly(paths: Iterable<string>): void {
		const keep = new Set(paths);
		for (const path of this.byPath.keys()) if (!keep.has(path)) this.byPath.delete(path);
	}

	private async textOf(path: string): Promise<string> {
		const stats = await stat(path).catch(() => undefined);
		if (!stats) {
			this.byPath.delete(path);
			return "";
		}
		const known = this.byPath.get(path);
		if (known?.size === stats.size && known.mtimeMs === stats.mtimeMs) return known.text;
		this.onRead?.(path);
		const text = messageTextOf(await readFile(path).catch(() => Buffer.alloc(0)));
		this.byPath.set(path, { size: stats.size, mtimeMs: stats.mtimeMs, text });
		return text;
	}
}
