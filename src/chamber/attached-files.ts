/**
 * A user message's `@file` attachments, read back out of its text. pi (its `@file` arguments, and the chamber's
 * attach.ts, which makes them the same way) puts each file before the user's words as `<file name="…">\n…\n</file>\n`
 * (an image as `<file name="…">note</file>\n`), and the model receives exactly that. The transcript and `/tree`
 * show the user's own words, with the files beside them.
 */
import type { AttachedFile } from "./wire.js";

const OPEN = '<file name="';
const TEXT_END = "\n</file>\n";
const IMAGE_END = "</file>\n";

export interface SplitMessage {
	/** The user's own words. */
	text: string;
	files: AttachedFile[];
}

/**
 * The leading file blocks and the words after them. A text file's end is the first `\n</file>\n` after it, as
 * a reader of pi's prompt would take it: a file that itself holds that line is cut there, and the rest shows as
 * words (nothing is lost from view).
 */
export function splitAttachedFiles(message: string): SplitMessage {
	const files: AttachedFile[] = [];
	let at = 0;
	while (message.startsWith(OPEN, at)) {
		const nameEnd = message.indexOf('">', at + OPEN.length);
		if (nameEnd < 0) break;
		const path = message.slice(at + OPEN.length, nameEnd);
		const bodyStart = nameEnd + 2;
		if (message[bodyStart] === "\n") {
			const end = message.indexOf(TEXT_END, bodyStart);
			if (end < 0) break;
			const text = message.slice(bodyStart + 1, end);
			files.push({ path, bytes: Buffer.byteLength(text), text });
			at = end + TEXT_END.length;
		} else {
			const end = message.indexOf(IMAGE_END, bodyStart);
			if (end < 0) break;
			const note = message.slice(bodyStart, end);
			files.push({ path, text: note, image: true });
			at = end + IMAGE_END.length;
		}
	}
	return { text: message.slice(at), files };
}
