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
import { isRecord } from "../protocol/json-object.js";
import { identifierProblem, textProblem } from "../manifest.js";
import type { Capability, PermissionSet } from "../protocol/capabilities.js";
import { FrameError } from "../protocol/codec.js";
import {
	type CapabilityManifest,
	type ContextSnapshot,
	type ExtensionFrame,
	type HostRequest,
	type Invocation,
	type Mode,
	PROTOCOL_VERSION,
	type ProtocolResult,
	parseExtensionFrame,
	type RuntimeAction,
	type UiRequest,
	type UiResponse,
	UI_REQUESTS,
} from "../protocol/frames.js";
import type { Channel } from "./channel.js";
import { ExtensionError } from "./errors.js";
import { CapabilityCheck, helloDenial } from "./permissions.js";
import { RegistrationBuilder, type Registrations } from "./registrations.js";
import type { ExtensionMetrics } from "./metrics.js";
import { MAX_REQUEST_TIMEOUT_MS, type Timeouts } from "./timeouts.js";
import { UiBudget } from "./ui-budget.js";

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

/** One host request awaiting its response. */
class Pending {
	onAbort: (() => void) | undefined;
	constructor(
		readonly id: string,
		readonly resolve: (value: unknown) => void,
		readonly reject: (error: Error) => void,
		readonly timeoutMs: number,
		/** `performance.now()` time past which the request times out. */
		readonly deadline: number,
		readonly signal: AbortSignal | undefined,
		readonly onUpdate: ((value: unknown) => void) | undefined,
		readonly metered: boolean,
	) {}
}

/** setTimeout's longest delay; a later deadline is swept at this distance and re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

function deferred<T>() {
	let resolve!: (value: T) => void;
	let reject!: (error: Error) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	promise.catch(() => {});
	return { promise, resolve, reject };
}

function withTimeout<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(onTimeout()), ms);
	});
	return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class ExtensionInstance {
	phase: Phase = "handshake";
	manifest: CapabilityManifest | undefined;
	/** The capability check against the hello and the spec, from the accepted hello on. */
	private capabilities: CapabilityCheck | undefined;
	registrations: Registrations | undefined;
	/** Why the instance stopped, once it has. */
	failure: string | undefined;

	private readonly pending = new Map<string, Pending>();
	/**
	 * One timer for every pending request's deadline instead of one timer each: armed at the earliest
	 * deadline, left running when requests settle (and unref'd while none is pending, so it never keeps the
	 * process alive on its own), swept and re-armed when it fires.
	 */
	private deadlineTimer: NodeJS.Timeout | undefined;
	private deadlineAt = Number.POSITIVE_INFINITY;
	/**
	 * Request ids are this instance's counter: they need only be unique among its own requests (one
	 * extension, one generation), and a short id is less to encode and parse on both sides of every call.
	 */
	private requestCount = 0;
	private readonly inbound = new Map<string, AbortController>();
	private readonly uiBudget: UiBudget;
	private readonly handshake = deferred<CapabilityManifest>();
	private loading: { id: string; builder: RegistrationBuilder; done: ReturnType<typeof deferred<void>> } | undefined;

	private constructor(
		readonly spec: ExtensionSpec,
		readonly channel: Channel,
		readonly options: InstanceOptions,
	) {
		this.uiBudget = new UiBudget(spec.id);
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
		await this.request({ kind: "initialize" }, { timeoutMs: timeouts.initializeMs });
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
		return this.request(request, options, true);
	}

	private request(request: HostRequest, options: InvokeOptions, metered = false): Promise<unknown> {
		const id = this.nextRequestId();
		const timeoutMs = options.timeoutMs ?? this.options.timeouts.invocationMs;
		const { signal, onUpdate } = options;
		let entry!: Pending;
		const promise = new Promise<unknown>((resolve, reject) => {
			entry = new Pending(id, resolve, reject, timeoutMs, performance.now() + timeoutMs, signal, onUpdate, metered);
		});
		this.pending.set(id, entry);
		if (signal) {
			const onAbort = () => this.finish(entry, new ExtensionError("cancelled", "the invocation was cancelled"), true);
			if (signal.aborted) {
				onAbort();
				return promise;
			}
			entry.onAbort = onAbort;
			signal.addEventListener("abort", onAbort, { once: true });
		}
		this.scheduleDeadline(entry.deadline);
		try {
			this.channel.send({ type: "request", id, generation: this.generation, request });
		} catch (error) {
			this.finish(entry, error instanceof Error ? error : new Error(String(error)));
		}
		return promise;
	}

	private nextRequestId(): string {
		return `h${++this.requestCount}`;
	}

	/** Settles a pending request once: with `error`, else with `value`; `cancel` tells the extension. */
	private finish(entry: Pending, error: Error | undefined, cancel = false, value?: unknown): void {
		if (!this.pending.delete(entry.id)) return;
		if (this.pending.size === 0) this.deadlineTimer?.unref();
		if (entry.onAbort) entry.signal!.removeEventListener("abort", entry.onAbort);
		if (cancel) this.trySend({ type: "cancel", id: entry.id });
		// The start time is the deadline less the timeout: nothing more to keep per request.
		if (entry.metered) this.options.metrics?.record(performance.now() - entry.deadline + entry.timeoutMs, error);
		if (error) entry.reject(error);
		else entry.resolve(value);
	}

	private scheduleDeadline(deadline: number): void {
		if (deadline < this.deadlineAt) {
			clearTimeout(this.deadlineTimer);
			this.deadlineAt = deadline;
			const delay = Math.min(MAX_TIMER_MS, Math.max(0, deadline - performance.now()));
			this.deadlineTimer = setTimeout(this.sweepDeadlines, delay);
		} else if (this.pending.size === 1) {
			this.deadlineTimer?.ref();
		}
	}

	/** Times out every request past its deadline and re-arms for the next one. */
	private readonly sweepDeadlines = (): void => {
		this.deadlineTimer = undefined;
		this.deadlineAt = Number.POSITIVE_INFINITY;
		const now = performance.now();
		const expired: Pending[] = [];
		let next = Number.POSITIVE_INFINITY;
		for (const entry of this.pending.values()) {
			if (entry.deadline <= now) expired.push(entry);
			else if (entry.deadline < next) next = entry.deadline;
		}
		for (const entry of expired) {
			this.finish(
				entry,
				new ExtensionError("timeout", `extension ${this.id} did not answer within ${entry.timeoutMs} ms`),
				true,
			);
		}
		if (next !== Number.POSITIVE_INFINITY && this.pending.size > 0) this.scheduleDeadline(next);
	};

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
				this.pending.get(frame.id)?.onUpdate?.(frame.value);
				return;
			case "cancel":
				checkRequestId(frame.id);
				this.inbound.get(frame.id)?.abort();
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
			const entry = this.pending.get(frame.id);
			if (entry === undefined || !isResponseFrame(frame)) return false;
			const result = frame.result as ProtocolResult;
			if (result.status === "success") this.finish(entry, undefined, false, result.value ?? null);
			else this.finish(entry, new ExtensionError(result.error.code, result.error.message));
			return true;
		}
		if (frame.type === "update") {
			const entry = this.pending.get(frame.id);
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
		this.loading = { id: this.nextRequestId(), builder, done: deferred<void>() };
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
		const pending = this.pending.get(id);
		if (!pending) return; // answered after cancel or timeout: nothing waits for it any more
		if (result.status === "success") this.finish(pending, undefined, false, result.value ?? null);
		else this.finish(pending, new ExtensionError(result.error.code, result.error.message));
	}

	private runtimeRequest(
		id: string,
		request: ExtensionFrame & { type: "request" } extends { request: infer R } ? R : never,
	) {
		if (this.loading) {
			this.trySend(
				failure(id, "load_phase", "runtime actions are unavailable during the registration-only load phase"),
			);
			throw new Error("extension attempted a runtime request during its load phase");
		}
		if (this.phase === "ready") return this.trySend(failure(id, "not_active", "extension is not active yet"));
		if (this.inbound.has(id)) throw new Error(`duplicate extension request id "${id}"`);
		const host = this.options.runtimeHost();
		const check = this.capabilities ?? new CapabilityCheck(this.spec, {});
		if (request.kind === "ui") {
			const { capability, interactive } = UI_REQUESTS[request.ui.request.type];
			const denied = check.ui(capability);
			if (denied) {
				return this.trySend(
					failure(id, "permission_denied", `UI capability "${capability}" was not granted (${denied.message})`),
				);
			}
			if (interactive && !(host?.hasUi ?? false)) {
				return this.trySend(
					failure(
						id,
						"ui_unavailable",
						`interactive UI ("${request.ui.request.type}") is unavailable in ${this.options.mode} mode`,
					),
				);
			}
			if (!host) return this.trySend(failure(id, "ui_unavailable", "this session has no extension UI"));
			const uiRequest = request.ui.request;
			const admitted = this.uiBudget.admit(uiRequest); // a flood is refused here, not queued
			if (typeof admitted === "string") return this.trySend(failure(id, "ui_request_failed", admitted));
			const timeoutMs =
				request.ui.timeoutMs === undefined ? undefined : Math.min(request.ui.timeoutMs, MAX_REQUEST_TIMEOUT_MS);
			return this.serveInbound(id, "ui_request_failed", timeoutMs, async (signal) => {
				const answer = await admitted(host.ui(uiRequest, { instance: this, signal }));
				if (!UI_REQUESTS[uiRequest.type].answers.includes(answer.type)) {
					throw new Error(`UI response type "${answer.type}" does not match request type "${uiRequest.type}"`);
				}
				return answer;
			});
		}
		const denied = check.capability("session_actions");
		if (denied) {
			return this.trySend(
				failure(
					id,
					"permission_denied",
					`session action capability "session_actions" was not granted (${denied.message})`,
				),
			);
		}
		if (!host) return this.trySend(failure(id, "action_unavailable", "this session has no extension action host"));
		const action = request.action;
		return this.serveInbound(id, "action_failed", undefined, (signal) =>
			host.action(action, { instance: this, signal }),
		);
	}

	private serveInbound(
		id: string,
		failureCode: string,
		timeoutMs: number | undefined,
		work: (signal: AbortSignal) => Promise<unknown>,
	): void {
		const controller = new AbortController();
		this.inbound.set(id, controller);
		const cancelled = new Promise<never>((_, reject) => {
			controller.signal.addEventListener("abort", () => reject(new Error("the request was cancelled")), { once: true });
		});
		const attempt = Promise.race([work(controller.signal), cancelled]);
		const bounded =
			timeoutMs === undefined
				? attempt
				: withTimeout(attempt, timeoutMs, () => {
						controller.abort();
						return new Error(`UI request timed out after ${timeoutMs} ms`);
					});
		bounded.then(
			(value) => this.answerInbound(id, { status: "success", value: value ?? null }),
			(error: unknown) =>
				this.answerInbound(id, {
					status: "failure",
					error: { code: failureCode, message: error instanceof Error ? error.message : String(error) },
				}),
		);
	}

	private answerInbound(id: string, result: ProtocolResult): void {
		if (!this.inbound.delete(id)) return;
		if (this.phase === "crashed" || this.phase === "invalidated") return;
		try {
			this.channel.send({ type: "response", id, result });
		} catch (error) {
			if (error instanceof FrameError) {
				this.trySend(failure(id, "frame_too_large", error.message));
			} else {
				this.crash(`sending a response failed: ${(error as Error).message}`);
			}
		}
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
		for (const pending of [...this.pending.values()]) this.finish(pending, error);
		clearTimeout(this.deadlineTimer);
		this.deadlineTimer = undefined;
		this.deadlineAt = Number.POSITIVE_INFINITY;
		for (const controller of this.inbound.values()) controller.abort();
		this.inbound.clear();
		this.options.onStateChange?.(this, phase, reason);
	}
}

/** Own enumerable keys of a parsed JSON object, all of them from `allowed`; how many. */
function closedKeys(value: object, allowed: readonly string[]): number {
	let count = 0;
	for (const key in value) {
		if (!Object.hasOwn(value, key) || !allowed.includes(key)) return -1;
		count++;
	}
	return count;
}

const RESPONSE_KEYS = ["type", "id", "result"] as const;
const UPDATE_KEYS = ["type", "id", "value"] as const;
const SUCCESS_KEYS = ["status", "value"] as const;
const FAILURE_KEYS = ["status", "error"] as const;
const ERROR_KEYS = ["code", "message"] as const;

/** Exactly the `response` frame schema of frames.ts (type and a string id already checked by the caller). */
function isResponseFrame(frame: object): boolean {
	if (closedKeys(frame, RESPONSE_KEYS) !== 3) return false;
	const result = (frame as { result: unknown }).result;
	if (!isRecord(result)) return false;
	if (result.status === "success") return Object.hasOwn(result, "status") && closedKeys(result, SUCCESS_KEYS) >= 1;
	if (result.status !== "failure" || closedKeys(result, FAILURE_KEYS) !== 2) return false;
	const error = result.error;
	return (
		isRecord(error) &&
		closedKeys(error, ERROR_KEYS) === 2 &&
		typeof error.code === "string" &&
		typeof error.message === "string"
	);
}

/** Exactly the `update` frame schema of frames.ts (type and a string id already checked by the caller). */
function isUpdateFrame(frame: object): boolean {
	return closedKeys(frame, UPDATE_KEYS) === 3;
}

function failure(id: string, code: string, message: string) {
	return { type: "response" as const, id, result: { status: "failure" as const, error: { code, message } } };
}

/** rpi's rule for request ids: 1–128 bytes, no control characters. */
function checkRequestId(id: string): void {
	const problem = textProblem(id, 128);
	if (problem) throw new Error(`request id ${problem}`);
}
