/**
 * Protocol v1 framing: LF-terminated JSON, one value per line, each frame at most
 * `maxFrameBytes` bytes excluding its LF. The decoder never holds more than one
 * frame's worth of bytes: an over-long line fails as soon as it passes the limit.
 * Every failure is final for the stream it came from (the peer is out of protocol).
 */

import { isUtf8 } from "node:buffer";
import { depthMessage, jsonTextTooDeep, MAX_JSON_DEPTH } from "./depth.js";

export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
export const MIN_MAX_FRAME_BYTES = 1024;

export type FrameErrorCode = "frame_too_large" | "invalid_frame";

export class FrameError extends Error {
	override name = "FrameError";
	constructor(
		readonly code: FrameErrorCode,
		message: string,
	) {
		super(message);
	}
}

export function checkMaxFrameBytes(value: number): number {
	if (!Number.isSafeInteger(value) || value < MIN_MAX_FRAME_BYTES) {
		throw new RangeError(`max_frame_bytes must be an integer of at least ${MIN_MAX_FRAME_BYTES}, got ${value}`);
	}
	return value;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Serializes one frame as its line of text (JSON + LF); refuses one that would exceed the limit rather than
 * sending it. A UTF-16 code unit is at most 3 UTF-8 bytes, so most frames need no byte count at all.
 */
export function encodeFrameText(value: unknown, maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES): string {
	const json = `${JSON.stringify(value)}`;
	if (json.length * 3 > maxFrameBytes) {
		const bytes = Buffer.byteLength(json, "utf8");
		if (bytes > maxFrameBytes) {
			throw new FrameError(
				"frame_too_large",
				`extension protocol frame exceeds ${maxFrameBytes} bytes (max_frame_bytes; this one is ${bytes})`,
			);
		}
	}
	return `${json}\n`;
}

/** Serializes one frame; refuses one that would exceed the limit rather than sending it. */
export function encodeFrame(value: unknown, maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES): Buffer {
	return Buffer.from(encodeFrameText(value, maxFrameBytes), "utf8");
}

/**
 * One frame's text → its JSON value, or a FrameError saying what is wrong with it. Depth is measured first,
 * so nothing nested deeper than `maxDepth` is ever parsed into a value (see depth.ts).
 */
export function parseFrameText(text: string, maxDepth: number = MAX_JSON_DEPTH): unknown {
	if (jsonTextTooDeep(text, maxDepth))
		throw new FrameError("invalid_frame", `frame has JSON ${depthMessage(maxDepth)}`);
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new FrameError("invalid_frame", `frame is not valid JSON: ${(error as Error).message}`);
	}
}

/** Incremental decoder: feed chunks, get parsed JSON values; call `end()` at EOF. */
export class FrameDecoder {
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	private failed: FrameError | undefined;

	constructor(
		readonly maxFrameBytes: number = DEFAULT_MAX_FRAME_BYTES,
		readonly maxDepth: number = MAX_JSON_DEPTH,
	) {
		checkMaxFrameBytes(maxFrameBytes);
	}

	push(chunk: Uint8Array): unknown[] {
		if (this.failed) throw this.failed;
		// The common case: nothing pending and whole frames up to the chunk's last LF, together within the limit
		// (so each one is). One UTF-8 check and one decode for all of them; anything unusual takes the general
		// path, which finds the same first error.
		if (this.pendingBytes === 0) {
			const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
			const last = bytes.lastIndexOf(LF);
			if (last >= 0 && last <= this.maxFrameBytes) {
				// Decoding replaces every invalid sequence with U+FFFD: without one, the bytes were UTF-8.
				const text = bytes.toString("utf8", 0, last);
				if (!text.includes("\uFFFD") || isUtf8(bytes.subarray(0, last))) {
					const frames = this.parseText(text);
					if (last + 1 < bytes.length) this.general(bytes.subarray(last + 1), frames);
					return frames;
				}
			}
		}
		return this.general(chunk, []);
	}

	private general(chunk: Uint8Array, frames: unknown[]): unknown[] {
		let start = 0;
		while (start < chunk.length) {
			const lf = chunk.indexOf(LF, start);
			const end = lf === -1 ? chunk.length : lf;
			const piece = chunk.subarray(start, end);
			if (this.pendingBytes + piece.length > this.maxFrameBytes) {
				return this.fail(
					"frame_too_large",
					`extension protocol frame exceeds ${this.maxFrameBytes} bytes (max_frame_bytes; ${this.pendingBytes + piece.length}+ bytes without LF)`,
				);
			}
			if (lf === -1) {
				this.pending.push(Buffer.from(piece));
				this.pendingBytes += piece.length;
				break;
			}
			const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
			this.pending = [];
			this.pendingBytes = 0;
			frames.push(this.parse(line));
			start = lf + 1;
		}
		return frames;
	}

	/** Valid UTF-8 text of whole lines (without the final LF): the checks of `parse` but the encoding's. */
	private parseText(text: string): unknown[] {
		const frames: unknown[] = [];
		let start = 0;
		for (;;) {
			const lf = text.indexOf("\n", start);
			const line = lf === -1 ? text.slice(start) : text.slice(start, lf);
			if (line.length === 0) return this.fail("invalid_frame", "blank line");
			if (line.charCodeAt(line.length - 1) === CR) {
				return this.fail("invalid_frame", "CRLF line ending (frames end with LF only)");
			}
			frames.push(this.json(line));
			if (lf === -1) return frames;
			start = lf + 1;
		}
	}

	/** The stream ended: a partial frame without its LF is an error. */
	end(): void {
		if (this.failed) throw this.failed;
		if (this.pendingBytes > 0) this.fail("invalid_frame", "stream ended inside a frame (final frame has no LF)");
	}

	private parse(line: Uint8Array): unknown {
		if (line.length === 0) return this.fail("invalid_frame", "blank line");
		if (line[line.length - 1] === CR) return this.fail("invalid_frame", "CRLF line ending (frames end with LF only)");
		if (!isUtf8(line)) return this.fail("invalid_frame", "frame is not valid UTF-8");
		return this.json(Buffer.from(line.buffer, line.byteOffset, line.length).toString("utf8"));
	}

	private json(text: string): unknown {
		try {
			return parseFrameText(text, this.maxDepth);
		} catch (error) {
			return this.fail("invalid_frame", (error as Error).message);
		}
	}

	private fail(code: FrameErrorCode, message: string): never {
		this.pending = [];
		this.pendingBytes = 0;
		this.failed = new FrameError(code, message);
		throw this.failed;
	}
}
