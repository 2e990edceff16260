/**
 * pier process-extension kit for Node: write a protocol v1 extension the way you
 * write an in-process pi extension.
 *
 *   #!/usr/bin/env node
 *   import { runExtension } from "./kit/node/index.mjs";
 *   runExtension({ id: "my-ext", capabilities: ["tools"] }, (pi) => {
 *     pi.registerTool({ name: "hi", parameters: { type: "object" }, execute: async () => ({ content: [] }) });
 *   });
 *
 * The kit owns the process: stdin/stdout carry LF-delimited JSON frames and
 * nothing else, so anything the extension prints (console.log, process.stdout)
 * is redirected to stderr, which the host keeps for its error messages.
 *
 * The protocol itself is the guest core's (kit/core/, shared with QuickJS); this
 * file is its Node transport. Plain JavaScript with a hand-written index.d.ts, so
 * it needs no build step and no dependencies beyond Node ≥ 20. docs/protocol-v1.md
 * is the wire reference (Appendix B: the guest core).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createGuest, messageOf, PROTOCOL_VERSION } from "../core/guest.mjs";

export { ExtensionRequestError } from "../core/guest.mjs";
export { PROTOCOL_VERSION };
/** The host's default limit (docs/protocol-v1.md §3); the bytes of a frame excluding its LF. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

/** An outbound frame over the limit: refused before anything is written. */
export class FrameTooLargeError extends Error {
	constructor(bytes, maxFrameBytes) {
		super(`extension protocol frame exceeds ${maxFrameBytes} bytes (max_frame_bytes; this one is ${bytes})`);
		this.name = "FrameTooLargeError";
		this.code = "frame_too_large";
	}
}

// ── framing ──────────────────────────────────────────────────────────────────

/** One frame as one line: compact JSON + LF, refused (not truncated) when over the limit. */
export function encodeFrame(frame, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
	const json = JSON.stringify(frame);
	// A UTF-16 code unit is at most 3 UTF-8 bytes: most frames need no byte count at all.
	if (json.length * 3 > maxFrameBytes) {
		const bytes = Buffer.byteLength(json, "utf8");
		if (bytes > maxFrameBytes) throw new FrameTooLargeError(bytes, maxFrameBytes);
	}
	return `${json}\n`;
}

/**
 * Splits a byte stream on LF only. Not `readline`: it also breaks lines at
 * U+2028/U+2029 and CR, which JSON strings may legally contain raw. Works on
 * bytes so a multi-byte character split across chunks is decoded whole.
 */
export class LineSplitter {
	constructor(maxFrameBytes, onLine) {
		this.maxFrameBytes = maxFrameBytes;
		this.onLine = onLine;
		this.pending = [];
		this.pendingBytes = 0;
	}

	push(chunk) {
		let start = 0;
		while (start < chunk.length) {
			const lf = chunk.indexOf(0x0a, start);
			const piece = chunk.subarray(start, lf === -1 ? chunk.length : lf);
			// Checked before buffering, so a runaway line never holds more than one frame of memory.
			if (this.pendingBytes + piece.length > this.maxFrameBytes) {
				throw new Error(`host frame exceeds ${this.maxFrameBytes} bytes`);
			}
			if (lf === -1) {
				this.pending.push(Buffer.from(piece));
				this.pendingBytes += piece.length;
				return;
			}
			const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
			this.pending = [];
			this.pendingBytes = 0;
			this.onLine(line);
			start = lf + 1;
		}
	}
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** One line → one frame object; the host never sends blank, CRLF or non-JSON lines, so those are fatal. */
function parseLine(line) {
	if (line.length === 0) throw new Error("blank line in the host's frame stream");
	if (line[line.length - 1] === 0x0d) throw new Error("CRLF line ending in the host's frame stream");
	return parseText(utf8.decode(line));
}

/** `parseLine` for a line already decoded (without its LF). */
function parseTextLine(text) {
	if (text.length === 0) throw new Error("blank line in the host's frame stream");
	if (text.charCodeAt(text.length - 1) === 0x0d) throw new Error("CRLF line ending in the host's frame stream");
	return parseText(text);
}

function parseText(text) {
	const frame = JSON.parse(text);
	if (frame === null || typeof frame !== "object" || typeof frame.type !== "string") {
		throw new Error("host frame is not an object with a type");
	}
	return frame;
}

// ── the runtime ──────────────────────────────────────────────────────────────

let started = false;

/**
 * Runs the extension: answers the host's hello with `manifest`, calls `factory(pi)` on the host's `load` request,
 * then serves invocations until the host shuts it down or stdin ends. The protocol itself is kit/core's; this is
 * its Node transport: LF-delimited frames on stdin/stdout, AsyncLocalStorage to tell which invocation a `pi.*`
 * call belongs to across awaits, and the process's own hooks.
 */
export function runExtension(manifest, factory, options = {}) {
	if (started) throw new Error("runExtension may be called only once per process");
	if (typeof factory !== "function") throw new TypeError("runExtension(manifest, factory): factory must be a function");
	started = true;
	new NodeTransport(normalizeManifest(manifest), factory, options).start();
}

function normalizeManifest(manifest = {}) {
	const id = manifest.id ?? process.env.PI_EXTENSION_ID;
	if (!id) throw new Error("runExtension: manifest.id is required (or PI_EXTENSION_ID must be set)");
	return {
		id,
		name: manifest.name ?? id,
		version: manifest.version ?? "0.0.0",
		capabilities: [...new Set(manifest.capabilities ?? [])],
		uiCapabilities: [...new Set(manifest.uiCapabilities ?? [])],
	};
}

class NodeTransport {
	constructor(manifest, factory, options) {
		this.manifest = manifest;
		this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		this.outbox = undefined;
		this.splitter = undefined;
		const storage = new AsyncLocalStorage();
		this.guest = createGuest({
			manifest,
			runtime: "node",
			requestPrefix: "kit-",
			send: (frame) => this.send(frame),
			exit: () => process.exit(0), // no reply is expected and the host kills the process group right after
			fatal: (message) => this.fatal(message),
			log: (line) => process.stderr.write(`[${manifest.id}] ${line}\n`),
			scope: { run: (state, fn) => storage.run(state, fn), current: () => storage.getStore() },
		});
		this.guest.setFactory(factory);
	}

	start() {
		this.claimStdout();
		// An author's forgotten promise must not take the extension down with all its registrations.
		process.on("unhandledRejection", (reason) => {
			process.stderr.write(`[${this.manifest.id}] unhandled rejection: ${reason?.stack ?? reason}\n`);
		});
		this.splitter = new LineSplitter(this.maxFrameBytes, (line) => this.guest.dispatch(parseLine(line)));
		process.stdin.on("data", (chunk) => this.onData(chunk));
		// The host closing our stdin is the end of the session for us.
		process.stdin.on("end", () => process.exit(0));
		process.stdin.on("error", () => process.exit(0));
	}

	onData(chunk) {
		try {
			this.receive(chunk, this.splitter);
		} catch (error) {
			this.fatal(`protocol error: ${messageOf(error)}`);
		}
	}

	/**
	 * The common case, nothing buffered and whole lines up to the chunk's last LF within the limit, decodes
	 * those lines at once; anything else (or text that is not UTF-8) goes line by line through the splitter,
	 * which dispatches every line before the faulty one exactly as it would have.
	 */
	receive(chunk, splitter) {
		const last = splitter.pendingBytes > 0 ? -1 : chunk.lastIndexOf(0x0a);
		let text;
		if (last >= 0 && last <= this.maxFrameBytes) {
			try {
				text = utf8.decode(chunk.subarray(0, last));
			} catch {
				// not UTF-8: the splitter finds the line and fails on it
			}
		}
		// A BOM starting any line but the first would survive a decode of the whole (the decoder drops one per call).
		if (text === undefined || text.includes("\uFEFF")) return splitter.push(chunk);
		let start = 0;
		for (;;) {
			const lf = text.indexOf("\n", start);
			this.guest.dispatch(parseTextLine(lf === -1 ? text.slice(start) : text.slice(start, lf)));
			if (lf === -1) break;
			start = lf + 1;
		}
		if (last + 1 < chunk.length) splitter.push(chunk.subarray(last + 1));
	}

	/** stdout is the protocol channel: keep its writer for frames and send every other write to stderr. */
	claimStdout() {
		const stdout = process.stdout;
		this.writeFrame = stdout.write.bind(stdout);
		stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
		stdout.on("error", () => process.exit(0)); // EPIPE: the host is gone
	}

	fatal(message) {
		process.stderr.write(`[${this.manifest.id}] ${message}\n`);
		process.exit(1);
	}

	/**
	 * A lone frame leaves at once; frames written after it while the same callback runs (its microtasks
	 * included) leave together in one write, so pipelined calls do not cost a syscall each. Not held to the end
	 * of the event-loop turn: libuv may read several chunks of requests in one turn, and the answers to the
	 * first should not wait for the last.
	 */
	send(frame) {
		const line = encodeFrame(frame, this.maxFrameBytes);
		if (this.outbox !== undefined) {
			this.outbox += line;
			return;
		}
		this.writeFrame(line);
		this.outbox = "";
		process.nextTick(this.flush);
	}

	flush = () => {
		const lines = this.outbox;
		this.outbox = undefined;
		if (lines.length > 0) this.writeFrame(lines);
	};
}
