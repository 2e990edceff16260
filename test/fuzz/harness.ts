/**
 * A real ExtensionInstance over an in-memory Channel: the fuzz tests decode bytes with the channels' own
 * decoders and hand every value to the instance exactly as a channel does, at a rate no process could.
 */
import type { Channel, ChannelEvents } from "../../src/extensions/host/channel.js";
import { ExtensionInstance, type RuntimeHost } from "../../src/extensions/host/instance.js";
import { resolveTimeouts } from "../../src/extensions/host/timeouts.js";
import { CAPABILITIES, permissions, UI_CAPABILITIES } from "../../src/extensions/protocol/capabilities.js";
import type { HostFrame } from "../../src/extensions/protocol/frames.js";
import { PENDING } from "./generator.js";

const MANIFEST = {
	id: "fuzz",
	name: "Fuzz",
	version: "1.0.0",
	capabilities: [...CAPABILITIES],
	uiCapabilities: [...UI_CAPABILITIES],
};

/** Plays a well-behaved extension through the handshake, then lets the fuzzer speak for it. */
class MemoryChannel implements Channel {
	events: ChannelEvents | undefined;
	closed = false;
	/** Host request ids the extension has not answered (invocations the harness started). */
	readonly pending: string[] = [];
	private done!: () => void;
	readonly exited = new Promise<void>((resolve) => {
		this.done = resolve;
	});

	constructor(private readonly handshake: boolean) {}

	start(events: ChannelEvents): void {
		this.events = events;
	}

	send(frame: HostFrame): void {
		if (this.closed) throw new Error("extension channel is closed");
		if (!this.handshake) return;
		const reply = (value: unknown) => queueMicrotask(() => this.closed || this.events?.frame(value));
		if (frame.type === "hello") reply({ type: "hello", protocolVersion: 1, manifest: MANIFEST });
		if (frame.type !== "request") return;
		const kind = frame.request.kind;
		if (kind === "load") {
			reply({
				type: "register",
				registration: {
					kind: "tool",
					tool: { name: "t", label: "T", description: "d", parameters: { type: "object" } },
				},
			});
		}
		if (kind === "load" || kind === "initialize")
			reply({ type: "response", id: frame.id, result: { status: "success" } });
		else this.pending.push(frame.id);
	}

	async terminate(): Promise<void> {
		if (this.closed) return;
		this.closed = true;
		this.events?.closed("terminated");
		this.done();
	}

	diagnostics(): string {
		return "";
	}
}

const runtimeHost: RuntimeHost = {
	hasUi: true,
	ui: async () => ({ type: "acknowledged" }),
	action: async () => null,
};

const timeouts = resolveTimeouts({
	handshakeMs: 100,
	loadMs: 100,
	initializeMs: 100,
	invocationMs: 200,
	hookMs: 200,
	shutdownMs: 20,
});

export interface FeedStats {
	frames: number;
	crashes: number;
	/** Exceptions that left the instance's inbound side (there must be none). */
	thrown: string[];
}

/** Feeds decoded values to live instances, starting a fresh one whenever the last crashed. */
export class InstanceFeeder {
	readonly stats: FeedStats = { frames: 0, crashes: 0, thrown: [] };
	private instance: ExtensionInstance | undefined;
	private channel: MemoryChannel | undefined;
	private generation = 0;

	private async fresh(): Promise<void> {
		const channel = new MemoryChannel(true);
		this.channel = channel;
		this.instance = await ExtensionInstance.start(
			{
				id: "fuzz",
				source: "fuzz",
				cwd: "/",
				projectTrusted: true,
				granted: permissions(CAPABILITIES, UI_CAPABILITIES),
				launch: async () => channel,
			},
			{ generation: ++this.generation, mode: "rpc", timeouts, runtimeHost: () => runtimeHost },
		);
		this.instance.activate();
	}

	/** One decoded value, as a channel delivers it (PENDING replaced by a request the host waits on). */
	async feed(value: unknown): Promise<void> {
		if (!this.instance || this.instance.phase === "crashed") {
			if (this.instance) this.stats.crashes++;
			await this.fresh();
		}
		const instance = this.instance!;
		const channel = this.channel!;
		if (channel.pending.length < 4) {
			instance.invoke({ kind: "tool", name: "t", callId: "c", arguments: {} }).catch(() => {});
		}
		if (typeof value === "object" && value !== null && (value as { id?: unknown }).id === PENDING) {
			(value as { id: string }).id = channel.pending.shift() ?? "none";
		}
		this.stats.frames++;
		try {
			channel.events!.frame(value);
		} catch (error) {
			this.stats.thrown.push(String((error as Error)?.stack ?? error));
		}
	}

	/** Frames during the handshake: an instance that never got a proper hello. */
	async feedHandshake(values: unknown[]): Promise<void> {
		const channel = new MemoryChannel(false);
		const started = ExtensionInstance.start(
			{
				id: "fuzz",
				source: "fuzz",
				cwd: "/",
				projectTrusted: true,
				granted: permissions(CAPABILITIES, UI_CAPABILITIES),
				launch: async () => channel,
			},
			{ generation: ++this.generation, mode: "rpc", timeouts, runtimeHost: () => runtimeHost },
		).then(
			(instance) => instance.shutdown("fuzz"),
			() => {},
		);
		await Promise.resolve();
		for (const value of values) {
			this.stats.frames++;
			try {
				channel.events?.frame(value);
			} catch (error) {
				this.stats.thrown.push(String((error as Error)?.stack ?? error));
			}
		}
		if (!channel.closed) void channel.terminate();
		await started;
	}

	async close(): Promise<void> {
		if (this.instance && this.instance.phase !== "crashed") await this.instance.shutdown("fuzz done");
	}
}
