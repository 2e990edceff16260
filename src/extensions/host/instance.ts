/**
 * One running extension: the protocol v1 state machine over a Channel.
 *
 *   hello → (extension hello) → load (registrations) → initialize → invocations → shutdown
 *
 * Runtime-neutral: a process, a QuickJS worker or a native plugin host all
 * arrive here as a Channel. A protocol violation or a dead channel marks the
 * instance crashed (with the peer's diagnostics) and fails whatever was pending;
 * nothing of it reaches the session except as an error.
 */
import { identifierProblem, textProblem } from "../manifest.js";
import type { Capability, PermissionSet } from "../protocol/capabilities.js";
import {
	type CapabilityManifest,
	type ContextSnapshot,
	type ExtensionFrame,
	type HostFrame,
	type HostRequest,
	type Invocation,
	type Mode,
	PROTOCOL_VERSION,
	type ProtocolResult,
	parseExtensionFrame,
	type RuntimeAction,
	type RuntimeRequest,
	type UiRequest,
	type UiResponse,
} from "../protocol/frames.js";
import type { Channel } from "./channel.js";
import { ExtensionError } from "./errors.js";
import { ExtensionRequests, failureFrame } from "./extension-requests.js";
import { HostRequests } from "./host-requests.js";
import { isResponseFrame, isUpdateFrame } from "./hot-frames.js";
import type { ExtensionMetrics } from "./metrics.js";
import { CapabilityCheck, helloDenial } from "./permissions.js";
import { deferred, withTimeout } from "./promises.js";
import { RegistrationBuilder, type Registrations } from "./registrations.js";
import type { Timeouts } from "./timeouts.js";

export type Phase = "handshake" | "loading" | "initializing" | "ready" | "active" | "invalidated" | "crashed";

/** How the host launches and trusts one extension. */
export interface ExtensionSpec {
	/** The configured id; the extension's hello must carry the same. */
	id: string;
	/** Shown in messages: where this extension comes from (its manifest path). */
	source: string;
	cwd: string;
	projectTrusted: boolean;
	/** What the host grants; the extension declares a subset in its hello. */
	granted: PermissionSet;
	/** What pi-extension.json declares, when known: tells an undeclared capability from one the launcher withheld. */
	declared?: PermissionSet;
	/** The runtime; `quickjs` is sandboxed, and its hook answers are held to the user's grants. */
	runtime?: "process" | "quickjs" | "native";
	/** Starts the runtime and returns its channel. */
	launch(): Promise<Channel>;
}

export interface RequestContext {
	instance: ExtensionInstance;
	signal: AbortSignal;
}

/** The session side of runtime requests; the bridge implements it. */
export interface RuntimeHost {
	/** Whether interactive dialogs (select, confirm, input, editor) can be shown. */
	readonly hasUi: boolean;
	ui(request: UiRequest, context: RequestContext): Promise<UiResponse>;
	action(action: RuntimeAction, context: RequestContext): Promise<unknown>;
}

export interface InstanceOptions {
	generation: number;
	mode: Mode;
	timeouts: Timeouts;
	/** Looked up per request, so a host can attach the session after loading. */
	runtimeHost: () => RuntimeHost | undefined;
	onStateChange?: (instance: ExtensionInstance, phase: Phase, reason: string) => void;
	/** Where this extension's invocations are counted and timed (kept by the host across generations). */
	metrics?: ExtensionMetrics;
}

export interface InvokeOptions {
	timeoutMs?: number;
	signal?: AbortSignal;
	context?: ContextSnapshot;
	onUpdate?: (value: unknown) => void;
}

export class ExtensionInstance {
	phase: Phase = "handshake";
	manifest: CapabilityManifest | undefined;
	/** The capability check against the hello and the spec, from the accepted hello on. */
	private capabilities: CapabilityCheck | undefined;
	registrations: Registrations | undefined;
	/** Why the instance stopped, once it has. */
	failure: string | undefined;

	private readonly requests: HostRequests;
	private readonly served: ExtensionRequests;
	private readonly handshake = deferred<CapabilityManifest>();
	private loading: { id: string; builder: RegistrationBuilder; done: ReturnType<typeof deferred<void>> } | undefined;

	private constructor(
		readonly spec: ExtensionSpec,
		readonly channel: Channel,
		readonly options: InstanceOptions,
	) {
		const port = {
			send: (frame: HostFrame) => channel.send(frame),
			trySend: (frame: HostFrame) => this.trySend(frame),
		};
		this.requests = new HostRequests(spec.id, options.generation, port, options.metrics);
		this.served = new ExtensionRequests(spec.id, {
			...port,
			instance: this,
			mode: options.mode,
			runtimeHost: options.runtimeHost,
			capabilities: () => this.capabilities ?? new CapabilityCheck(spec, {}),
			stopped: () => this.phase === "crashed" || this.phase === "invalidated",
			crash: (reason) => this.crash(reason),
		});
	}

	get id(): string {
		return this.spec.id;
	}

	get generation(): number {
		return this.options.generation;
	}

	/** Launches, handshakes, loads and initializes; the instance is `ready` when this resolves. */
	static async start(spec: ExtensionSpec, options: InstanceOptions): Promise<ExtensionInstance> {
		const channel = await spec.launch();
		const instance = new ExtensionInstance(spec, channel, options);
		channel.start({ frame: (value) => instance.onFrame(value), closed: (reason) => instance.onClosed(reason) });
		try {
			await instance.startup();
			return instance;
		} catch (error) {
			instance.crash(error instanceof Error ? error.message : String(error));
			await channel.terminate();
			throw new ExtensionError("load_failed", `extension ${spec.id} (${spec.source}): ${instance.failure}`);
		}
	}

	private async startup(): Promise<void> {
		const { timeouts } = this.options;
		this.channel.send({
			type: "hello",
			protocolVersion: PROTOCOL_VERSION,
			instance: { extensionId: this.spec.id, generation: this.generation },
			cwd: this.spec.cwd,
			mode: this.options.mode,
			projectTrusted: this.spec.projectTrusted,
		});
		await withTimeout(
			this.handshake.promise,
			timeouts.handshakeMs,
			() => new ExtensionError("timeout", `handshake timed out after ${timeouts.handshakeMs} ms`),
		);
		const loading = this.loading!;
		await withTimeout(
			loading.done.promise,
			timeouts.loadMs,
			() => new ExtensionError("timeout", `load phase timed out after ${timeouts.loadMs} ms`),
		);
		if (this.phase !== "loading") throw new Error(this.failure ?? `extension left the load phase (${this.phase})`);
		this.registrations = loading.builder.registrations;
		this.loading = undefined;
		this.phase = "initializing";
		await this.requests.send({ kind: "initialize" }, timeouts.initializeMs);
		// A violation in the same chunk as the initialize response crashes the instance before this
		// continuation runs; it must stay crashed, not be revived as ready.
		if (this.phase !== "initializing") throw new Error(this.failure ?? `extension left initialization (${this.phase})`);
		this.phase = "ready";
	}

	/** A committed generation's instances become active together. */
	activate(): void {
		if (this.phase === "ready") this.phase = "active";
	}

	get isLive(): boolean {
		return this.phase === "active" || this.phase === "ready";
	}

	/** Runs an invocation (tool, command, event, …), streaming `update` values, until its response. */
	invoke(invocation: Invocation, options: InvokeOptions = {}): Promise<unknown> {
		if (this.phase !== "active") {
			const code = this.phase === "invalidated" || this.phase === "crashed" ? "invalidated" : "not_active";
			return Promise.reject(
				new ExtensionError(code, `extension ${this.id} generation ${this.generation} is not active (${this.phase})`),
			);
		}
		const request: HostRequest = {
			kind: "invoke",
			invocation,
			...(options.context ? { context: options.context } : {}),
		};
		return this.requests.send(request, options.timeoutMs ?? this.options.timeouts.invocationMs, options, true);
	}

	/** A partial update of one of its tools, under the extension's UI budget. */
	admitToolUpdate(chars: number, final: boolean): boolean {
		return this.served.admitToolUpdate(chars, final);
	}

	/** Orderly end: `shutdown` frame, a grace period, then the runtime is terminated regardless. */
	async shutdown(reason: string): Promise<void> {
		const wasLive = this.phase !== "crashed" && this.phase !== "invalidated";
		this.stop(
			"invalidated",
			`shut down: ${reason}`,
			new ExtensionError("shutdown", `extension ${this.id} is shutting down (${reason})`),
		);
		if (wasLive) {
			this.trySend({ type: "shutdown", reason });
			let timer: NodeJS.Timeout | undefined;
			await Promise.race([
				this.channel.exited,
				new Promise<void>((resolve) => {
					timer = setTimeout(resolve, this.options.timeouts.shutdownMs);
				}),
			]);
			clearTimeout(timer);
		}
		await this.channel.terminate();
	}

	// ── inbound ─────────────────────────────────────────────────────────────

	private onFrame(value: unknown): void {
		if (this.phase === "crashed" || this.phase === "invalidated") return;
		try {
			if (!this.inFlight(value)) this.handle(parseExtensionFrame(value));
		} catch (error) {
			this.violation(error instanceof Error ? error.message : String(error));
		}
	}

	private onClosed(reason: string): void {
		if (this.phase === "crashed" || this.phase === "invalidated") return;
		this.crash(reason);
	}

	private violation(message: string): void {
		this.crash(`protocol violation: ${message}`);
	}

	private handle(frame: ExtensionFrame): void {
		if (this.phase === "handshake") {
			if (frame.type !== "hello") throw new Error(`expected hello, received ${frame.type}`);
			this.beginLoad(this.checkHello(frame.protocolVersion, frame.manifest));
			return;
		}
		switch (frame.type) {
			case "hello":
				throw new Error("duplicate hello frame");
			case "register":
				if (!this.loading) throw new Error("registration is only allowed during the load phase");
				this.loading.builder.register(frame.registration);
				return;
			case "unregister_provider":
				if (!this.loading) throw new Error("provider unregistration is only allowed during the load phase");
				this.loading.builder.unregisterProvider(frame.id);
				return;
			case "response":
				checkRequestId(frame.id);
				if (this.loading && frame.id === this.loading.id) {
					this.finishLoad(frame.result);
					return;
				}
				if (this.loading) throw new Error(`unexpected response ${frame.id} during the load phase`);
				this.settle(frame.id, frame.result);
				return;
			case "update":
				checkRequestId(frame.id);
				if (this.loading) throw new Error("unexpected update during the load phase");
				this.requests.get(frame.id)?.onUpdate?.(frame.value);
				return;
			case "cancel":
				checkRequestId(frame.id);
				this.served.cancel(frame.id);
				return;
			case "request":
				checkRequestId(frame.id);
				this.runtimeRequest(frame.id, frame.request);
				return;
		}
	}

	/**
	 * The hot frames, `response` and `update` of a request in flight, checked against exactly their closed
	 * shapes and handled without the generic validator. Anything else — another frame, an unknown id, a frame
	 * that fails the check — returns false and takes the general path, which validates it again and reports
	 * the violation. (A pending id is one this host allocated, so it needs no id check.)
	 */
	private inFlight(value: unknown): boolean {
		if (this.loading !== undefined || this.phase === "handshake") return false;
		if (typeof value !== "object" || value === null) return false;
		const frame = value as { type?: unknown; id?: unknown; result?: unknown; value?: unknown };
		if (typeof frame.id !== "string") return false;
		if (frame.type === "response") {
			const entry = this.requests.get(frame.id);
			if (entry === undefined || !isResponseFrame(frame)) return false;
			this.requests.answer(entry, frame.result as ProtocolResult);
			return true;
		}
		if (frame.type === "update") {
			const entry = this.requests.get(frame.id);
			if (entry === undefined || !isUpdateFrame(frame)) return false;
			entry.onUpdate?.(frame.value);
			return true;
		}
		return false;
	}

	private checkHello(protocolVersion: number, manifest: CapabilityManifest): CapabilityManifest {
		if (protocolVersion !== PROTOCOL_VERSION) {
			throw new Error(`unsupported extension protocol version ${protocolVersion}; host requires ${PROTOCOL_VERSION}`);
		}
		const idProblem = identifierProblem(manifest.id);
		if (idProblem) throw new Error(`hello manifest id ${idProblem}`);
		if (manifest.id !== this.spec.id) {
			throw new Error(`hello manifest id "${manifest.id}" does not match the configured id "${this.spec.id}"`);
		}
		const nameProblem = textProblem(manifest.name, 256) ?? undefined;
		if (nameProblem) throw new Error(`hello manifest name ${nameProblem}`);
		const versionProblem = textProblem(manifest.version, 128);
		if (versionProblem) throw new Error(`hello manifest version ${versionProblem}`);
		const caps = manifest.capabilities ?? [];
		const ui = manifest.uiCapabilities ?? [];
		if (ui.length > 0 && !caps.includes("ui"))
			throw new Error('hello declares UI operations without the "ui" capability');
		const denied = helloDenial(this.spec, manifest);
		if (denied) throw new Error(denied);
		this.manifest = manifest;
		this.capabilities = new CapabilityCheck(this.spec, manifest);
		return manifest;
	}

	/** Entered as the hello is accepted, so every later frame is judged by the load phase's rules. */
	private beginLoad(manifest: CapabilityManifest): void {
		const declared = new Set<Capability>(manifest.capabilities ?? []);
		const builder = new RegistrationBuilder(declared, this.spec.granted, this.spec);
		this.loading = { id: this.requests.nextId(), builder, done: deferred<void>() };
		this.phase = "loading";
		this.channel.send({ type: "request", id: this.loading.id, generation: this.generation, request: { kind: "load" } });
		this.handshake.resolve(manifest);
	}

	private finishLoad(result: ProtocolResult): void {
		const loading = this.loading!;
		if (result.status === "failure") {
			loading.done.reject(
				new ExtensionError("load_failed", `load failed: ${result.error.code}: ${result.error.message}`),
			);
		} else {
			loading.done.resolve();
		}
	}

	private settle(id: string, result: ProtocolResult): void {
		const pending = this.requests.get(id);
		// Answered after cancel or timeout: nothing waits for it any more.
		if (pending) this.requests.answer(pending, result);
	}

	/** An extension's runtime request: only an active extension's (its phase decides), then served. */
	private runtimeRequest(id: string, request: RuntimeRequest) {
		if (this.loading) {
			this.trySend(
				failureFrame(id, "load_phase", "runtime actions are unavailable during the registration-only load phase"),
			);
			throw new Error("extension attempted a runtime request during its load phase");
		}
		if (this.phase === "ready") return this.trySend(failureFrame(id, "not_active", "extension is not active yet"));
		this.served.serve(id, request);
	}

	// ── failure ─────────────────────────────────────────────────────────────

	private trySend(frame: Parameters<Channel["send"]>[0]): void {
		try {
			this.channel.send(frame);
		} catch {
			// the channel is gone; its closing is reported on its own
		}
	}

	private crash(reason: string): void {
		const tail = this.channel.diagnostics().trim();
		const message = tail ? `${reason}; stderr: ${tail}` : reason;
		const code = this.phase === "handshake" || this.phase === "loading" ? "load_failed" : "transport_closed";
		this.stop("crashed", message, new ExtensionError(code, `extension ${this.id} crashed: ${message}`));
		this.handshake.reject(new Error(message));
		this.loading?.done.reject(new Error(message));
		void this.channel.terminate(); // its process group may still hold descendants
	}

	private stop(phase: "crashed" | "invalidated", reason: string, error: ExtensionError): void {
		if (this.phase === "crashed" || this.phase === "invalidated") return;
		this.phase = phase;
		this.failure = reason;
		this.requests.failAll(error);
		this.served.cancelAll();
		this.options.onStateChange?.(this, phase, reason);
	}
}

/** rpi's rule for request ids: 1–128 bytes, no control characters. */
function checkRequestId(id: string): void {
	const problem = textProblem(id, 128);
	if (problem) throw new Error(`request id ${problem}`);
}
