/**
 * A terminal's scrollback: the newest output, at most `maxBytes` of it as UTF-8, replayed to a page that connects
 * (a reload, a reconnect). Output arrives in chunks; whole chunks are dropped from the front, then the oldest kept
 * chunk is cut, so memory stays within the bound however long the shell runs.
 */

/** How far past a cut the replay may skip to start at a line (a partial line or escape sequence is noise). */
const LINE_START_WINDOW = 4096;

export class Scrollback {
	private chunks: { text: string; bytes: number }[] = [];
	private total = 0;

	constructor(readonly maxBytes: number) {}

	/** The bytes held (UTF-8), never more than `maxBytes`. */
	get bytes(): number {
		return this.total;
	}

	append(text: string): void {
		if (text === "") return;
		this.chunks.push({ text, bytes: Buffer.byteLength(text) });
		this.total += this.chunks.at(-1)!.bytes;
		if (this.total <= this.maxBytes) return;
		while (this.chunks.length > 0 && this.total - this.chunks[0]!.bytes >= this.maxBytes) {
			this.total -= this.chunks.shift()!.bytes;
		}
		const first = this.chunks[0];
		if (!first || this.total <= this.maxBytes) return;
		const kept = cutFront(first.text, this.total - this.maxBytes);
		this.total -= first.bytes;
		first.text = kept;
		first.bytes = Buffer.byteLength(kept);
		this.total += first.bytes;
	}

	/** Everything held, oldest first; joins the chunks once, so a later replay costs one string. */
	text(): string {
		if (this.chunks.length > 1) {
			const text = this.chunks.map((c) => c.text).join("");
			this.chunks = [{ text, bytes: this.total }];
		}
		return this.chunks[0]?.text ?? "";
	}
}

/**
 * `text` without its first `excess` bytes, cut at a character boundary (never half a UTF-8 sequence) and, when a
 * line starts soon after the cut, at that line.
 */
function cutFront(text: string, excess: number): string {
	const bytes = Buffer.from(text);
	let start = excess;
	// A UTF-8 continuation byte is 10xxxxxx: step past them to the next character.
	while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
	const newline = bytes.indexOf(0x0a, start);
	if (newline >= 0 && newline - start < LINE_START_WINDOW) start = newline + 1;
	return bytes.subarray(start).toString("utf8");
}
