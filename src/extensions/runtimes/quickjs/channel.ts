/** QuickJS extensions: a worker thread per extension, frames as strings over its port. */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Worker } from "node:worker_threads";
import type { Channel, ChannelEvents } from "../../host/channel.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame } from "../../protocol/codec.js";
import { readWorkerMessage, type WorkerMessage } from "./inbound.js";
import type { QuickJsWorkerData } from "./worker.js";

declare const WebAssembly: { Module: new (bytes: Uint8Array) => object };

/**
 * QuickJS's WebAssembly, compiled once per pier process and handed to every worker:
 * compiling it in each worker is most of a QuickJS extension's start-up time.
 */
let compiled: object | undefined;
function quickjsModule(): object {
	if (!compiled) {
		const require = createRequire(import.meta.url);
		const packageDir = dirname(require.resolve("@jitl/quickjs-wasmfile-release-sync/package.json"));
		compiled = new WebAssembly.Module(readFileSync(join(packageDir, "dist", "emscripten-module.wasm")));
	}
	return compiled;
}

/** The seed's bound: each extension's WebAssembly memory may not grow past this. */
export const QUICKJS_MEMORY_BYTES = 64 * 1024 * 1024;

export class QuickJsChannel implements Channel {
	readonly exited: Promise<void>;
	private readonly worker: Worker;
	private events: ChannelEvents | undefined;
	private backlog: unknown[] = [];
	private closedReason: string | undefined;
	private readonly maxFrameBytes: number;

	private readonly watchdog: NodeJS.Timeout;

	constructor(
		data: Omit<QuickJsWorkerData, "maxFrameBytes" | "memoryBytes" | "turnClock"> & {
			maxFrameBytes?: number;
			memoryBytes?: number;
			/** Last resort: a worker busy this long in one turn is terminated. Default: 2 × deadline + 1 s. */
			watchdogMs?: number;
		},
	) {
		this.maxFrameBytes = data.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		const { watchdogMs: _watchdog, ...rest } = data;
		const turnClock = new BigInt64Array(new SharedArrayBuffer(8));
		const workerData: QuickJsWorkerData = {
			...rest,
			turnClock,
			wasmModule: quickjsModule(),
			maxFrameBytes: this.maxFrameBytes,
			memoryBytes: data.memoryBytes ?? QUICKJS_MEMORY_BYTES,
		};
		// 1 MiB of native stack: QuickJS's own recursion limit trips before Node's does.
		this.worker = new Worker(new URL("./worker.js", import.meta.url), {
			workerData,
			resourceLimits: { stackSizeMb: 4 },
		});
		// The interrupt deadline and the worker's own job budget stop runaway guest code; anything that still
		// does not yield (a worker stuck where the interrupt cannot reach: a wedged allocator, a blocking call)
		// is terminated here. The worker publishes when its current turn began, so this covers work after a
		// call answered just as well as work a call waits for, without a message per turn.
		const watchdogMs = data.watchdogMs ?? data.deadlineMs * 2 + 1_000;
		this.watchdog = setInterval(
			() => {
				const began = Number(Atomics.load(turnClock, 0));
				if (began > 0 && Date.now() - began > watchdogMs) {
					const reason = `QuickJS extension ${data.manifest.id} did not yield for ${watchdogMs} ms; its worker was terminated`;
					this.fail(reason);
				}
			},
			Math.min(1_000, Math.max(50, watchdogMs / 4)),
		);
		this.watchdog.unref();
		this.worker.on("message", (message: unknown) => {
			// Whatever arrives here, nothing of it may throw: this runs on the daemon's own event loop.
			let read: WorkerMessage;
			try {
				read = readWorkerMessage(message, this.maxFrameBytes);
			} catch (error) {
				read = { kind: "violation", message: `unreadable worker message: ${(error as Error).message}` };
			}
			switch (read.kind) {
				case "frame":
					return this.deliver(read.frame);
				case "violation":
					return this.fail(`protocol violation: ${read.message}`);
				case "fatal":
					return this.fail(read.message);
				case "ready":
					return;
			}
		});
		this.worker.on("messageerror", (error) => this.fail(`protocol violation: unreadable message (${error.message})`));
		this.worker.on("error", (error) => {
			this.close(`QuickJS worker failed: ${error.message}`);
		});
		this.exited = new Promise((resolve) => {
			this.worker.once("exit", (code) => {
				this.close(`QuickJS worker exited (code ${code})`);
				resolve();
			});
		});
	}

	start(events: ChannelEvents): void {
		this.events = events;
		for (const value of this.backlog.splice(0)) events.frame(value);
		if (this.closedReason !== undefined) events.closed(this.closedReason);
	}

	send(frame: Parameters<Channel["send"]>[0]): void {
		if (this.closedReason !== undefined) throw new Error(`extension channel is closed (${this.closedReason})`);
		const text = encodeFrame(frame, this.maxFrameBytes).toString("utf8").slice(0, -1);
		this.worker.postMessage(text);
	}

	async terminate(): Promise<void> {
		clearInterval(this.watchdog);
		await this.worker.terminate();
		await this.exited;
	}

	/** A guest has no output of its own (no console); every failure's message is in the close reason. */
	diagnostics(): string {
		return "";
	}

	private deliver(value: unknown): void {
		if (this.closedReason !== undefined) return;
		if (this.events) this.events.frame(value);
		else this.backlog.push(value);
	}

	/** The extension is out of protocol or stopped itself: the channel closes and the worker goes. */
	private fail(reason: string): void {
		// Messages already queued behind the first violation change nothing (and must not terminate again).
		if (this.closedReason !== undefined) return;
		this.close(reason);
		void this.terminate();
	}

	private close(reason: string): void {
		if (this.closedReason !== undefined) return;
		this.closedReason = reason;
		this.events?.closed(reason);
	}
}
