/**
 * The plugin host's end of the protocol: frames from pier on fd 3, frames to pier on fd 4 (the native
 * channel spawns it that way, so fds 0/1 stay free for a plugin that owns stdio, and a plugin's stray printf
 * can never corrupt the protocol).
 *
 * The kit (kit/node/index.mjs) is given this as `process.stdin`/`process.stdout`. Every write is synchronous
 * and whole, so a synchronous round trip (a plugin's `runtime_action`, which must answer before returning to
 * the plugin) can write its request and block reading fd 3 for the answer: every other frame read meanwhile
 * is queued and handed to the kit afterwards, in order. Responses to the host's own requests (ids
 * `native-N`) never reach the kit. Otherwise fd 3 is read the ordinary way, by a socket's data events.
 */
import { EventEmitter } from "node:events";
import { readSync, writeSync } from "node:fs";
import { Socket } from "node:net";
import { waitReadable, waitWritable } from "./libc.js";

export const PROTOCOL_IN_FD = 3;
export const PROTOCOL_OUT_FD = 4;

const OWN_RESPONSE = Buffer.from('{"type":"response","id":"native-');
const LF = 0x0a;

interface Result {
	status: "success" | "failure";
	value?: unknown;
	error?: { code: string; message: string };
}

/** A runtime request pier answered with a failure. */
export class HostRequestError extends Error {
	constructor(
		readonly code: string,
		message: string,
	) {
		super(`${code}: ${message}`);
	}
}

function resultValue(result: Result): unknown {
	if (result.status === "success") return result.value ?? null;
	throw new HostRequestError(result.error?.code ?? "failed", result.error?.message ?? "request failed");
}

/** Writes all of `text` as UTF-8: straight from the string (no Buffer of its own) unless the write was partial. */
function writeText(fd: number, text: string): void {
	let written = 0;
	try {
		written = writeSync(fd, text);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
	}
	if (written < Buffer.byteLength(text, "utf8")) writeAll(fd, Buffer.from(text, "utf8"), written);
}

/** Writes all of `bytes` (from `offset`) to a (blocking or not) fd, blocking in `poll` while the pipe is full. */
function writeAll(fd: number, bytes: Buffer, offset = 0): void {
	while (offset < bytes.length) {
		try {
			offset += writeSync(fd, bytes, offset, bytes.length - offset);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EAGAIN") throw error;
			waitWritable(fd);
		}
	}
}

export class ProtocolPort {
	/** What the kit reads as `process.stdin`. */
	readonly input = new EventEmitter();
	/** What the kit writes as `process.stdout`. */
	readonly output: { write(chunk: string | Uint8Array, ...rest: unknown[]): boolean; on(...args: unknown[]): unknown };
	private pendingLine: Buffer[] = [];
	private pendingBytes = 0;
	/** Lines for the kit, delivered on a later tick (never inside a plugin call). */
	private queue: Buffer[] = [];
	private draining = false;
	private ended = false;
	/** The kit listens for frames (it never stops once it has started). */
	private kitListening = false;
	private endSent = false;
	private nextId = 0;
	private readonly waiting = new Map<string, (result: Result) => void>();

	constructor(private readonly maxFrameBytes: number) {
		const emitter = new EventEmitter();
		this.output = Object.assign(emitter, {
			write: (chunk: string | Uint8Array, ...rest: unknown[]) => {
				if (typeof chunk === "string") writeText(PROTOCOL_OUT_FD, chunk);
				else writeAll(PROTOCOL_OUT_FD, Buffer.from(chunk));
				const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
				done?.();
				return true;
			},
		});
		// Frames may arrive before the kit listens (it is imported after the plugin registers): hold them.
		this.input.on("newListener", (event) => {
			if (event !== "data") return;
			this.kitListening = true;
			setImmediate(() => this.scheduleDrain());
		});
		const socket = new Socket({ fd: PROTOCOL_IN_FD, readable: true, writable: false });
		socket.on("data", (chunk: Buffer) => this.received(chunk));
		socket.on("end", () => this.end());
		socket.on("error", () => this.end());
	}

	/** One frame to pier, now. */
	send(frame: unknown): void {
		writeText(PROTOCOL_OUT_FD, `${JSON.stringify(frame)}\n`);
	}

	/** A runtime request answered through pier, asynchronously. */
	requestAsync(request: unknown): Promise<unknown> {
		const id = `native-${++this.nextId}`;
		return new Promise((resolve, reject) => {
			this.waiting.set(id, (result) => {
				try {
					resolve(resultValue(result));
				} catch (error) {
					reject(error);
				}
			});
			this.send({ type: "request", id, request });
		});
	}

	/**
	 * A runtime request answered before this returns: blocks the main thread (in `poll`, not spinning) until
	 * pier's response arrives or `timeoutMs` passes. Frames read meanwhile wait for the kit.
	 */
	request(request: unknown, timeoutMs: number): unknown {
		const id = `native-${++this.nextId}`;
		let answer: Result | undefined;
		this.waiting.set(id, (result) => {
			answer = result;
		});
		this.send({ type: "request", id, request });
		const deadline = performance.now() + timeoutMs;
		const buffer = Buffer.allocUnsafe(64 * 1024);
		while (answer === undefined) {
			const left = deadline - performance.now();
			if (left <= 0 || this.ended) {
				this.waiting.delete(id);
				try {
					this.send({ type: "cancel", id });
				} catch {
					// pier is gone
				}
				throw new Error(this.ended ? "pier closed the protocol channel" : `no answer from pier within ${timeoutMs} ms`);
			}
			if (!waitReadable(PROTOCOL_IN_FD, left)) continue;
			let read: number;
			try {
				read = readSync(PROTOCOL_IN_FD, buffer, 0, buffer.length, null);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "EAGAIN") continue;
				throw error;
			}
			if (read === 0) {
				this.end();
				continue;
			}
			this.ingest(Buffer.from(buffer.subarray(0, read)));
		}
		return resultValue(answer);
	}

	/**
	 * A chunk from the event loop. The common case, whole lines (the chunk ends in LF), nothing held back and
	 * no answer of the host's own awaited, is the kit's as it is, handed over now: no split, no copy, no
	 * extra turn. (A late answer to a request the host gave up on may be in it: the kit drops a response
	 * with an id it does not know.)
	 */
	private received(chunk: Buffer): void {
		if (
			this.waiting.size === 0 &&
			this.pendingBytes === 0 &&
			this.queue.length === 0 &&
			!this.draining &&
			chunk[chunk.length - 1] === LF &&
			this.kitListening
		) {
			this.input.emit("data", chunk);
		} else this.ingest(chunk);
	}

	/** Splits on LF; the host's own responses are taken here, everything else queued for the kit in order. */
	private ingest(chunk: Buffer): void {
		let start = 0;
		while (start < chunk.length) {
			const lf = chunk.indexOf(LF, start);
			const piece = chunk.subarray(start, lf === -1 ? chunk.length : lf + 1);
			if (this.pendingBytes + piece.length > this.maxFrameBytes + 1) {
				// Over the limit: let the kit's splitter refuse it (it ends the process with the reason).
				this.queue.push(...this.pendingLine, Buffer.from(piece));
				this.pendingLine = [];
				this.pendingBytes = 0;
			} else if (lf === -1) {
				this.pendingLine.push(Buffer.from(piece));
				this.pendingBytes += piece.length;
			} else {
				const line = this.pendingLine.length === 0 ? piece : Buffer.concat([...this.pendingLine, piece]);
				this.pendingLine = [];
				this.pendingBytes = 0;
				if (!this.takeOwn(line)) this.queue.push(Buffer.from(line));
			}
			if (lf === -1) break;
			start = lf + 1;
		}
		this.scheduleDrain();
	}

	private takeOwn(line: Buffer): boolean {
		if (
			line.length < OWN_RESPONSE.length ||
			line.compare(OWN_RESPONSE, 0, OWN_RESPONSE.length, 0, OWN_RESPONSE.length) !== 0
		)
			return false;
		const frame = JSON.parse(line.toString("utf8")) as { id: string; result: Result };
		this.waiting.get(frame.id)?.(frame.result);
		this.waiting.delete(frame.id);
		return true;
	}

	private scheduleDrain(): void {
		if (this.draining || (this.queue.length === 0 && !this.ended) || this.input.listenerCount("data") === 0) return;
		this.draining = true;
		setImmediate(() => {
			this.draining = false;
			const lines = this.queue.splice(0);
			if (lines.length > 0) this.input.emit("data", lines.length === 1 ? lines[0] : Buffer.concat(lines));
			if (this.ended && this.queue.length === 0 && !this.endSent) {
				this.endSent = true;
				this.input.emit("end");
			}
		});
	}

	private end(): void {
		if (this.ended) return;
		this.ended = true;
		for (const resolve of this.waiting.values())
			resolve({ status: "failure", error: { code: "transport_closed", message: "pier closed the channel" } });
		this.waiting.clear();
		this.scheduleDrain(); // "end" follows the last lines, once the kit listens
	}
}
