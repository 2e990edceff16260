/** QuickJS extensions: a worker thread per extension, frames as strings over its port. */
import { Worker } from "node:worker_threads";
import type { Channel, ChannelEvents } from "../../host/channel.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame } from "../../protocol/codec.js";
import type { QuickJsWorkerData } from "./worker.js";

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

	constructor(
		data: Omit<QuickJsWorkerData, "maxFrameBytes" | "memoryBytes"> & { maxFrameBytes?: number; memoryBytes?: number },
	) {
		this.maxFrameBytes = data.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		const workerData: QuickJsWorkerData = {
			...data,
			maxFrameBytes: this.maxFrameBytes,
			memoryBytes: data.memoryBytes ?? QUICKJS_MEMORY_BYTES,
		};
		// 1 MiB of native stack: QuickJS's own recursion limit trips before Node's does.
		this.worker = new Worker(new URL("./worker.js", import.meta.url), {
			workerData,
			resourceLimits: { stackSizeMb: 4 },
		});
		this.worker.on("message", (message: unknown) => {
			if (typeof message === "string") return this.deliver(JSON.parse(message));
			const control = message as { fatal?: string };
			if (control.fatal) {
				this.errors.push(control.fatal);
				this.close(control.fatal);
				void this.terminate();
			}
		});
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
		this.worker.postMessage(encodeFrame(frame, this.maxFrameBytes).toString("utf8", 0, undefined).slice(0, -1));
	}

	async terminate(): Promise<void> {
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

	private close(reason: string): void {
		if (this.closedReason !== undefined) return;
		this.closedReason = reason;
		this.events?.closed(reason);
	}
}
