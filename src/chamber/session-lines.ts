/**
 * pi session files read as bytes. Decoding a whole file as UTF-8 and parsing every line costs more than
 * anything the chamber does with it (an 84 MiB file: ~300 ms to decode, ~450 ms to parse), and most lines
 * are messages of which a view or a listing needs only a few fields. pi's SessionManager writes a message
 * entry as `{"type":"message","id":…,"parentId":…,"timestamp":…,"message":{"role":…,…,"timestamp":N}}`,
 * so those fields are read from the line's first and last bytes; a line of any other shape is parsed in
 * full, so the shortcut never guesses about a line it does not recognise.
 */
import type { SessionHeader } from "@earendil-works/pi-coding-agent";

/** pi's current session format; older files go through pi's own migration (by opening the session). */
export const CURRENT_VERSION = 3;

/** Printable ASCII without `"` or `\`: such a field reads the same as Latin-1 bytes or as UTF-8 text. */
const PLAIN = String.raw`[\x20\x21\x23-\x5b\x5d-\x7e]+`;
const MESSAGE_PREFIX = new RegExp(
	String.raw`^\{"type":"message","id":"(${PLAIN})","parentId":(?:null|"(${PLAIN})"),"timestamp":"(${PLAIN})"(?:,"message":\{"role":"([A-Za-z_]+)")?`,
);
/** pi's prefix is ~110 bytes with the role (8-character ids); more room costs garbage on every line. */
const PREFIX_BYTES = 144;
/** A message object's last key is its `timestamp` (pi-ai's messages); `}}` closes it and the entry. */
const MESSAGE_TIME = /,"timestamp":(\d{1,16})\}\}$/;
const TAIL_BYTES = 32;
const NEWLINE = 0x0a;
const OPEN_BRACE = 0x7b;

export interface MessageLine {
	id: string;
	parentId: string | null;
	timestamp: string;
	/** The message's role, when it follows the entry's fields directly. */
	role?: string;
}

/** Calls `visit` with each line's byte range (without its newline). */
export function forEachLine(bytes: Buffer, visit: (start: number, end: number) => void): void {
	for (let start = 0; start < bytes.length; ) {
		let end = bytes.indexOf(NEWLINE, start);
		if (end === -1) end = bytes.length;
		visit(start, end);
		start = end + 1;
	}
}

/** The fields of a message line written the way pi writes it, or undefined (then parse the line). */
export function messageLine(bytes: Buffer, start: number, end: number): MessageLine | undefined {
	if (bytes[start] !== OPEN_BRACE) return undefined;
	const match = MESSAGE_PREFIX.exec(bytes.toString("latin1", start, Math.min(end, start + PREFIX_BYTES)));
	if (!match) return undefined;
	return {
		id: match[1]!,
		parentId: match[2] ?? null,
		timestamp: match[3]!,
		...(match[4] !== undefined ? { role: match[4] } : {}),
	};
}

/** The message's own `timestamp` (epoch ms) from the line's last bytes, or undefined. */
export function messageTime(bytes: Buffer, start: number, end: number): number | undefined {
	const match = MESSAGE_TIME.exec(bytes.toString("latin1", Math.max(start, end - TAIL_BYTES), end));
	return match ? Number(match[1]) : undefined;
}

const USAGE_KEY = Buffer.from('"usage":{');
const OPEN = 0x7b;
const CLOSE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * An assistant message line's `usage` object, parsed from the line's bytes without parsing the line: pi-ai
 * writes `usage` after the content, so its key's last occurrence is the message's own (a `"usage":{` in any
 * text is escaped, `\"usage\"`). Undefined when it is not there or holds a string (parse the line instead).
 */
export function messageUsage(bytes: Buffer, start: number, end: number): unknown {
	const at = bytes.lastIndexOf(USAGE_KEY, end);
	if (at < start) return undefined;
	const open = at + USAGE_KEY.length - 1;
	let depth = 0;
	let inString = false;
	for (let i = open; i < end; i++) {
		const b = bytes[i];
		if (inString) {
			if (b === BACKSLASH) return undefined;
			if (b === QUOTE) inString = false;
		} else if (b === QUOTE) inString = true;
		else if (b === OPEN) depth++;
		else if (b === CLOSE && --depth === 0) return parseLine(bytes.toString("utf8", open, i + 1));
	}
	return undefined;
}

/** JSON.parse, or undefined for a malformed line (pi skips those). */
export function parseLine(line: string): unknown {
	try {
		return JSON.parse(line);
	} catch {
		return undefined;
	}
}

export function lineText(bytes: Buffer, start: number, end: number): string {
	return bytes.toString("utf8", start, end);
}

/**
 * The header, when `line` is the file's first parseable line: "skip" for a blank or malformed line before it,
 * "not-session" when the first entry is not a session header (pi then ignores the file). The version is the
 * caller's to check: pi lists older files and migrates them when it opens one.
 */
export function headerOf(line: string): SessionHeader | "skip" | "not-session" {
	if (!line.trim()) return "skip";
	const parsed = parseLine(line) as { type?: string } | undefined;
	// pi skips a line that parses to nothing (`null`, `0`, `""`) as it skips a malformed one.
	if (!parsed) return "skip";
	return parsed.type === "session" ? (parsed as SessionHeader) : "not-session";
}
