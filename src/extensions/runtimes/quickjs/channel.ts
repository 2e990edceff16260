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
	private readonly errors: string[] = [];
	private readonly maxFrameBytes: number;

	private lastHeard = Date.now();
	private awaiting = 0;
	private readonly watchdog: NodeJS.Timeout;

	constructor(
		data: Omit<QuickJsWorkerData, "maxFrameBytes" | "memoryBytes"> & {
			maxFrameBytes?: number;
			memoryBytes?: number;
			/** Last resort: a worker silent this long while a request waits is terminated. Default: 2 × deadline + 1 s. */
			watchdogMs?: number;
		},
	) {
		this.maxFrameBytes = data.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		const { watchdogMs: _watchdog, ...rest } = data;
		const workerData: QuickJsWorkerData = {
			...rest,
			wasmModule: quickjsModule(),
			maxFrameBytes: this.maxFrameBytes,
			memoryBytes: data.memoryBytes ?? QUICKJS_MEMORY_BYTES,
		};
		// 1 MiB of native stack: QuickJS's own recursion limit trips before Node's does.
		this.worker = new Worker(new URL("./worker.js", import.meta.url), {
			workerData,
			resourceLimits: { stackSizeMb: 4 },
		});
		// The interrupt deadline stops runaway bytecode; anything that still does not yield
		// (a worker stuck outside QuickJS's reach) is terminated here.
		const watchdogMs = data.watchdogMs ?? data.deadlineMs * 2 + 1_000;
		this.watchdog = setInterval(
			() => {
				if (this.awaiting > 0 && Date.now() - this.lastHeard > watchdogMs) {
					const reason = `QuickJS extension did not yield for ${watchdogMs} ms; its worker was terminated`;
					this.errors.push(reason);
					this.close(reason);
					void this.terminate();
				}
			},
			Math.min(1_000, Math.max(50, watchdogMs / 4)),
		);
		this.watchdog.unref();
		this.worker.on("message", (message: unknown) => {
			this.lastHeard = Date.now();
			// Whatever arrives here, nothing of it may throw: this runs on the daemon's own event loop.
			let read: WorkerMessage;
			try {
				read = readWorkerMessage(message, this.maxFrameBytes);
			} catch (error) {
				read = { kind: "violation", message: `unreadable worker message: ${(error as Error).message}` };
			}
			switch (read.kind) {
				case "frame":
					if (read.frame.type === "response" && this.awaiting > 0) this.awaiting--;
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
			this.errors.push(error.message);
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
		if (frame.type === "request") {
			if (this.awaiting === 0) this.lastHeard = Date.now();
			this.awaiting++;
		}
		this.worker.postMessage(text);
	}

	async terminate(): Promise<void> {
		clearInterval(this.watchdog);
		await this.worker.terminate();
		await this.exited;
	}

	diagnostics(): string {
		return this.errors.join("\n");
	}

	private deliver(value: unknown): void {
		if (this.closedReason !== undefined) return;
		if (this.events) this.events.frame(value);
		else this.backlog.push(value);
	}

	/** The extension is out of protocol or stopped itself: the channel closes and the worker goes. */
	private fail(reason: string): void {
		this.close(reason);
		void this.terminate();
	}

	private close(reason: string): void {
		if (this.closedReason !== undefined) return;
		this.closedReason = reason;
		this.events?.closed(reason);
	}
}
