/** QuickJS extensions: a guest in a shared worker thread (pool.ts), frames as strings over its own port. */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { Channel, ChannelEvents } from "../../host/channel.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrameText } from "../../protocol/codec.js";
import type { QuickJsGuestData } from "./guest.js";
import { readWorkerMessage, type WorkerMessage } from "./inbound.js";
import { admitGuest, type Lease } from "./pool.js";

/** The seed's bound: each extension's WebAssembly memory may not grow past this. */
export const QUICKJS_MEMORY_BYTES = 64 * 1024 * 1024;

export class QuickJsChannel implements Channel {
	readonly exited: Promise<void>;
	private readonly port: MessagePort;
	private readonly lease: Lease;
	private events: ChannelEvents | undefined;
	private backlog: unknown[] = [];
	private closedReason: string | undefined;
	private readonly maxFrameBytes: number;
	private ended = false;
	private resolveExited!: () => void;

	constructor(
		data: Omit<QuickJsGuestData, "maxFrameBytes" | "memoryBytes" | "watchdogMs"> & {
			maxFrameBytes?: number;
			memoryBytes?: number;
			/**
			 * Last resort: a turn running this long stops the guest (the worker does it, on the guest's own clock),
			 * and a worker showing no sign of life inside a turn for this long is terminated. Default: 2 × deadline + 1 s.
			 */
			watchdogMs?: number;
		},
	) {
		this.maxFrameBytes = data.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		const watchdogMs = data.watchdogMs ?? data.deadlineMs * 2 + 1_000;
		const guest: QuickJsGuestData = {
			manifest: data.manifest,
			entry: data.entry,
			root: data.root,
			deadlineMs: data.deadlineMs,
			maxFrameBytes: this.maxFrameBytes,
			memoryBytes: data.memoryBytes ?? QUICKJS_MEMORY_BYTES,
			watchdogMs,
		};
		this.exited = new Promise((resolve) => {
			this.resolveExited = resolve;
		});
		const { port1, port2 } = new MessageChannel();
		this.port = port1;
		port1.on("message", (message: unknown) => this.receive(message));
		port1.on("messageerror", (error) => this.fail(`protocol violation: unreadable message (${error.message})`));
		port1.once("close", () => {
			this.close("QuickJS extension closed");
			this.end();
		});
		this.lease = admitGuest(
			{
				id: data.manifest.id,
				watchdogMs,
				died: (reason) => {
					this.close(reason);
					this.end();
				},
			},
			guest,
			port2,
		);
	}

	start(events: ChannelEvents): void {
		this.events = events;
		for (const value of this.backlog.splice(0)) events.frame(value);
		if (this.closedReason !== undefined) events.closed(this.closedReason);
	}

	send(frame: Parameters<Channel["send"]>[0]): void {
		if (this.closedReason !== undefined) throw new Error(`extension channel is closed (${this.closedReason})`);
		// The line's text without its LF: no Buffer on the way, the port carries strings.
		this.port.postMessage(encodeFrameText(frame, this.maxFrameBytes).slice(0, -1));
	}

	async terminate(): Promise<void> {
		this.end();
		await this.exited;
	}

	/** A guest has no output of its own (no console); every failure's message is in the close reason. */
	diagnostics(): string {
		return "";
	}

	/** One message from the guest's port. Whatever arrives, nothing of it may throw: this is the daemon's loop. */
	private receive(message: unknown): void {
		let read: WorkerMessage;
		try {
			read = readWorkerMessage(message, this.maxFrameBytes);
		} catch (error) {
			read = { kind: "violation", message: `unreadable worker message: ${(error as Error).message}` };
		}
		if (read.kind === "frame") this.deliver(read.frame);
		else if (read.kind === "violation") this.fail(`protocol violation: ${read.message}`);
		else if (read.kind === "fatal") this.fail(read.message);
		else if (read.kind === "exit") {
			this.close("QuickJS extension exited");
			this.end();
		}
	}

	private deliver(value: unknown): void {
		if (this.closedReason !== undefined) return;
		if (this.events) this.events.frame(value);
		else this.backlog.push(value);
	}

	/** The extension is out of protocol or stopped itself: the channel closes and the guest goes. */
	private fail(reason: string): void {
		// Messages already queued behind the first violation change nothing (and must not end it again).
		if (this.closedReason !== undefined) return;
		this.close(reason);
		this.end();
	}

	private close(reason: string): void {
		if (this.closedReason !== undefined) return;
		this.closedReason = reason;
		this.events?.closed(reason);
	}

	/** The guest is let go (it stops at its next poll) and its port closed; `exited` resolves. */
	private end(): void {
		if (this.ended) return;
		this.ended = true;
		this.lease.release();
		this.port.close();
		this.resolveExited();
	}
}
