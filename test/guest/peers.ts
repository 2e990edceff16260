/**
 * The guest conformance suite's scripted host: a real guest (a Node kit child process, a QuickJS guest in the
 * real worker pool, or a native C plugin in its plugin host) behind its real channel, driven frame by frame. Nothing of pier's ExtensionHost is in between,
 * so what is asserted is the guest's own behaviour on the wire.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { Channel } from "../../src/extensions/host/channel.js";
import type { HostFrame } from "../../src/extensions/protocol/frames.js";
import { ProcessChannel } from "../../src/extensions/runtimes/process/channel.js";
import { NativeChannel } from "../../src/extensions/runtimes/native/channel.js";
import { PLUGIN_HOST_SCRIPT } from "../../src/extensions/runtimes/native/launcher.js";
import { QuickJsChannel } from "../../src/extensions/runtimes/quickjs/channel.js";
import { cLibrary } from "../helpers/native-build.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";

export const GUEST_FIXTURES = realpathSync(join(REPO_ROOT, "test", "fixtures", "guest"));

// biome-ignore lint/suspicious/noExplicitAny: frames are read field by field in assertions, as the wire has them
export type Frame = Record<string, any>;
export type GuestRuntime = "node" | "quickjs" | "native";

export interface GuestManifest {
	id: string;
	name: string;
	version: string;
	capabilities: string[];
	uiCapabilities: string[];
}

export function manifest(id: string, capabilities: string[], uiCapabilities: string[] = []): GuestManifest {
	return { id, name: id, version: "1.0.0", capabilities, uiCapabilities };
}

export class GuestPeer {
	/** Every frame the guest sent, in order; `next` takes from here. */
	readonly frames: Frame[] = [];
	closed: string | undefined;
	private waiters: Array<() => void> = [];
	private seq = 0;

	constructor(private readonly channel: Channel) {
		channel.start({
			frame: (value) => {
				this.frames.push(value as Frame);
				this.wake();
			},
			closed: (reason) => {
				this.closed = reason;
				this.wake();
			},
		});
	}

	private wake(): void {
		for (const waiter of this.waiters.splice(0)) waiter();
	}

	send(frame: Frame): void {
		this.channel.send(frame as HostFrame);
	}

	/** The first frame (removed from `frames`) that `match` accepts, waiting up to `timeoutMs` for it. */
	async next(match: (frame: Frame) => boolean, timeoutMs = 10_000): Promise<Frame> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const index = this.frames.findIndex(match);
			if (index >= 0) return this.frames.splice(index, 1)[0]!;
			if (this.closed !== undefined)
				throw new Error(`the guest's channel closed (${this.closed}) with ${JSON.stringify(this.frames)}`);
			if (Date.now() > deadline) throw new Error(`no matching frame; have ${JSON.stringify(this.frames)}`);
			await new Promise<void>((resolve) => {
				this.waiters.push(resolve);
				setTimeout(resolve, 50);
			});
		}
	}

	/** A host request; resolves with the guest's response frame. */
	async request(request: Frame, timeoutMs?: number): Promise<Frame> {
		const id = `h-${++this.seq}`;
		this.send({ type: "request", id, generation: 1, request });
		return this.next((f) => f.type === "response" && f.id === id, timeoutMs);
	}

	/** Starts an invocation without waiting; returns the host request id. */
	invokeLater(invocation: Frame, context?: Frame): string {
		const id = `h-${++this.seq}`;
		this.send({
			type: "request",
			id,
			generation: 1,
			request: { kind: "invoke", invocation, ...(context ? { context } : {}) },
		});
		return id;
	}

	async invoke(invocation: Frame, context?: Frame): Promise<Frame> {
		const id = this.invokeLater(invocation, context);
		return (await this.next((f) => f.type === "response" && f.id === id)).result;
	}

	/** The guest's next runtime request (UI or action). */
	nextRequest(): Promise<Frame> {
		return this.next((f) => f.type === "request");
	}

	answer(request: Frame, value: unknown): void {
		this.send({ type: "response", id: request.id, result: { status: "success", value } });
	}

	/** hello → load; returns the guest's hello, its registration frames (in order) and the load's result. */
	async handshake(mode = "rpc"): Promise<{ hello: Frame; registrations: Frame[]; load: Frame }> {
		this.send({
			type: "hello",
			protocolVersion: 1,
			instance: { extensionId: "conformance", generation: 1 },
			cwd: "/conformance",
			mode,
			projectTrusted: true,
		});
		const hello = await this.next((f) => f.type === "hello");
		const load = (await this.request({ kind: "load" })).result;
		const registrations = this.frames
			.splice(0)
			.filter((f) => f.type === "register" || f.type === "unregister_provider");
		return { hello, registrations, load };
	}

	/** handshake, asserting the load succeeded, then initialize. */
	async start(mode = "rpc"): Promise<{ hello: Frame; registrations: Frame[] }> {
		const { hello, registrations, load } = await this.handshake(mode);
		if (load.status !== "success") throw new Error(`load failed: ${JSON.stringify(load)}`);
		const init = await this.request({ kind: "initialize" });
		if (init.result.status !== "success") throw new Error(`initialize failed: ${JSON.stringify(init)}`);
		return { hello, registrations };
	}

	async stop(): Promise<void> {
		try {
			this.send({ type: "shutdown", reason: "test end" });
		} catch {
			// already closed
		}
		await Promise.race([this.channel.exited, new Promise((resolve) => setTimeout(resolve, 1_000))]);
		await this.channel.terminate();
	}
}

/**
 * One guest of `runtime` under `m`: for node and quickjs the factory module `entry` (a file of
 * test/fixtures/guest); for native the C plugin test/fixtures/native/c/<entry without .mjs>.c, built with gcc
 * and run by pier's plugin host exactly as a `runtime: native` manifest launches it.
 */
export async function launchGuest(runtime: GuestRuntime, entry: string, m: GuestManifest): Promise<GuestPeer> {
	if (runtime !== "native") return startGuest(runtime, entry, m);
	const library = await cLibrary(entry.replace(/\.mjs$/, ""));
	const channel = new NativeChannel(
		{
			id: m.id,
			cwd: GUEST_FIXTURES,
			library,
			capabilities: m.capabilities,
			uiCapabilities: m.uiCapabilities,
			version: m.version,
		},
		PLUGIN_HOST_SCRIPT,
	);
	return new GuestPeer(channel);
}

/** One guest of a JS runtime running the factory module `entry` (a file of test/fixtures/guest) under `m`. */
export function startGuest(runtime: GuestRuntime, entry: string, m: GuestManifest, deadlineMs = 5_000): GuestPeer {
	if (runtime === "native") throw new Error("startGuest: a native guest is built first; use launchGuest");
	const file = join(GUEST_FIXTURES, entry);
	if (runtime === "quickjs") {
		return new GuestPeer(new QuickJsChannel({ manifest: m, entry: file, root: GUEST_FIXTURES, deadlineMs }));
	}
	return new GuestPeer(
		new ProcessChannel({
			id: m.id,
			executable: process.execPath,
			arguments: [join(GUEST_FIXTURES, "node-main.mjs"), file, JSON.stringify(m)],
			cwd: GUEST_FIXTURES,
		}),
	);
}
