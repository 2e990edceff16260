/**
 * The guest side of protocol v1, written once (docs/protocol-v1.md): the handshake and phases, the factory API,
 * invocations (tools, commands, shortcuts, hooks, providers, overlays, message renderers), runtime requests with
 * cancellation, and every answer's shape. A runtime adds only its transport:
 *
 *   const guest = createGuest({ manifest, runtime: "node", send, exit, fatal, log, scope, errorText });
 *   guest.setFactory(factory);   // then each host frame, parsed: guest.dispatch(frame)
 *
 * `send(frame)` writes one frame (throwing an error with `code: "frame_too_large"` for one over the limit);
 * `scope` tells which invocation a `pi.*` call belongs to across awaits (AsyncLocalStorage in Node; without it,
 * only calls made synchronously inside a handler are attributed). Plain ES2020, no imports outside kit/core,
 * no host APIs: QuickJS loads these files as modules.
 */
import { newAbortController } from "./signal.mjs";
import { EventBus } from "./events.mjs";
import { InvocationContext, sessionActions, snapshotGetters } from "./context.mjs";
import { combine, feedForward, foldInPlace, hookEvent, inPlaceBefore, stopsChain } from "./hook-table.mjs";
import { completeProvider, overlayEvent, renderOverlay, streamProvider } from "./invocations.mjs";
import { Registry } from "./registry.mjs";

export const PROTOCOL_VERSION = 1;

/** A runtime request the host answered with a failure; `code` is the protocol error code. */
export class ExtensionRequestError extends Error {
	constructor(code, message) {
		super(`${code}: ${message}`);
		this.name = "ExtensionRequestError";
		this.code = code;
	}
}

/** A failure the guest itself answers an invocation with (unsupported kind…), with its protocol code. */
class InvocationFailure extends Error {
	constructor(code, message) {
		super(message);
		this.code = code;
	}
}

export const success = (value) => ({ status: "success", value: value === undefined ? null : value });
export const failure = (code, message) => ({ status: "failure", error: { code, message: String(message) } });
export const messageOf = (error) => (error instanceof Error ? error.message : String(error));
const CANCELLED = () => failure("cancelled", "the invocation was cancelled");
/** Hooks whose event carries the invocation's live signal (rpi). */
const SIGNAL_EVENTS = ["session_before_compact", "session_before_tree"];

/**
 * pi's fire-and-forget calls (notify, setStatus, sendMessage…) return void there; here they return promises an
 * author may never await. Marking them handled keeps a host refusal from becoming an unhandled rejection.
 */
function quiet(promise) {
	promise.catch(() => {});
	return promise;
}

/** Calls only made synchronously inside a handler know their invocation (runtimes without async context). */
function syncScope() {
	let current;
	return {
		run(state, fn) {
			const outer = current;
			current = state;
			try {
				return fn();
			} finally {
				current = outer;
			}
		},
		current: () => current,
	};
}

export function createGuest(transport) {
	return new Guest(transport);
}

class Guest {
	constructor(transport) {
		this.transport = transport;
		this.manifest = transport.manifest;
		this.runtime = transport.runtime;
		this.scope = transport.scope ?? syncScope();
		this.errorText = transport.errorText ?? messageOf;
		this.requestPrefix = transport.requestPrefix ?? "guest-";
		/** Whether handlers start on a later microtask (QuickJS: a synchronous spin's interrupt must be catchable). */
		this.deferHandlers = transport.deferHandlers === true;
		/** Whether the host may ask this runtime to render messages (process extensions: yes; QuickJS: as rpi, no). */
		this.rendersMessages = transport.rendersMessages !== false;
		/** handshake → loading → live (or failed); registrations only while loading, requests only when live. */
		this.phase = "handshake";
		this.host = { cwd: undefined, mode: "print", projectTrusted: false };
		this.factory = undefined;
		this.registry = new Registry(this);
		/** Host request id → running invocation. */
		this.invocations = new Map();
		/** Our request id → awaiting caller. */
		this.pending = new Map();
		this.nextRequestId = 0;
		/** The most recent context snapshot, for pi.getFlag & co. called outside any invocation. */
		this.latestSnapshot = undefined;
		this.api = this.createApi();
	}

	setFactory(factory) {
		if (typeof factory !== "function") {
			throw new TypeError("the extension factory must be a function: export default function (pi) { ... }");
		}
		this.factory = factory;
	}

	send(frame) {
		this.transport.send(frame);
	}

	/** Answers a host request exactly as asked, or with why that was impossible. */
	respond(id, result) {
		try {
			this.send({ type: "response", id, result });
		} catch (error) {
			const code = error && error.code === "frame_too_large" ? "frame_too_large" : "extension_error";
			this.send({ type: "response", id, result: failure(code, `result not sent: ${messageOf(error)}`) });
		}
	}

	// ── inbound frames ───────────────────────────────────────────────────────

	dispatch(frame) {
		switch (frame.type) {
			case "hello":
				return this.onHello(frame);
			case "request":
				return this.onHostRequest(frame);
			case "response":
				return this.onResponse(frame);
			case "cancel":
				return this.onCancel(frame.id);
			case "shutdown":
				return this.transport.exit?.();
			default:
				this.transport.log?.(`ignoring unknown host frame type ${frame.type}`);
		}
	}

	onHello(frame) {
		if (frame.protocolVersion !== PROTOCOL_VERSION) {
			return this.transport.fatal(
				`host speaks protocol ${frame.protocolVersion}; this guest speaks ${PROTOCOL_VERSION}`,
			);
		}
		this.host = { cwd: frame.cwd, mode: frame.mode, projectTrusted: frame.projectTrusted };
		this.send({ type: "hello", protocolVersion: PROTOCOL_VERSION, manifest: this.manifest });
	}

	onHostRequest(frame) {
		const { id, request } = frame;
		switch (request.kind) {
			case "load":
				return void this.load(id);
			case "initialize":
				return this.respond(id, success(null));
			case "invoke":
				return this.invoke(id, request.invocation, request.context);
			default:
				return this.respond(id, failure("unsupported_request", `unsupported host request ${request.kind}`));
		}
	}

	async load(id) {
		this.phase = "loading";
		try {
			if (!this.factory) throw new Error("the extension has no factory");
			await this.factory(this.api);
		} catch (error) {
			this.phase = "failed";
			return this.respond(id, failure("load_failed", this.errorText(error)));
		}
		// Before the response: from here on registrations are refused and runtime requests allowed.
		this.phase = "live";
		this.respond(id, success(null));
	}

	onResponse(frame) {
		const waiting = this.pending.get(frame.id);
		if (!waiting) return; // answered after we gave up on it
		this.forget(frame.id);
		const { result } = frame;
		if (result.status === "success") waiting.resolve(result.value ?? null);
		else waiting.reject(new ExtensionRequestError(result.error.code, result.error.message));
	}

	/** The host gave up on an invocation: abort its signal, cancel its own requests, answer `cancelled`. */
	onCancel(id) {
		const state = this.invocations.get(id);
		if (!state) return;
		const error = new ExtensionRequestError("cancelled", "the host cancelled this invocation");
		state.cancelled = true;
		if (state.controller) state.controller.abort(error);
		for (const requestId of [...(state.requests ?? [])]) this.cancelRequest(requestId, error);
		this.finish(state, CANCELLED());
	}

	// ── invocations ──────────────────────────────────────────────────────────

	invoke(id, invocation, context) {
		if (context) this.latestSnapshot = context;
		// The controller and the set of the invocation's requests are made on first use: most calls need neither.
		const state = { id, context, controller: undefined, cancelled: false, requests: undefined, done: false };
		this.invocations.set(id, state);
		const ctx = new InvocationContext(this, state);
		const kind = invocation.kind;
		const run = () => (state.done ? undefined : this.scope.run(state, () => this.route(invocation, ctx, state)));
		let value;
		if (this.deferHandlers) {
			// Behind a promise boundary, never in this frame's own call: an error the handler throws, even QuickJS's
			// uncatchable interrupt of a synchronous spin, then rejects this chain and is answered.
			value = Promise.resolve().then(run);
		} else {
			// In this frame's call (a throw is caught here): the native plugin host hands a started call over to
			// the tool's execute within it. Settled a microtask later all the same, so a cancel read in the same
			// chunk still wins.
			try {
				value = run();
			} catch (error) {
				value = Promise.reject(error);
			}
		}
		Promise.resolve(value).then(
			(result) => this.finish(state, success(kind === "tool" ? (result ?? { content: [] }) : result)),
			(error) => {
				if (state.cancelled) this.finish(state, CANCELLED());
				else if (error instanceof InvocationFailure) this.finish(state, failure(error.code, error.message));
				else this.finish(state, failure("extension_error", this.errorText(error)));
			},
		);
	}

	finish(state, result) {
		if (state.done) return; // already answered (cancelled)
		state.done = true;
		this.invocations.delete(state.id);
		this.respond(state.id, state.cancelled && result.status === "success" ? CANCELLED() : result);
	}

	signalOf(state) {
		if (!state.controller) state.controller = newAbortController();
		if (state.cancelled && !state.controller.signal.aborted) state.controller.abort();
		return state.controller.signal;
	}

	/** Runs the handler; its value, or a promise of it. */
	route(invocation, ctx, state) {
		const registry = this.registry;
		switch (invocation.kind) {
			case "tool": {
				const tool = registered(registry.tools, "tool", invocation.name);
				const onUpdate = (partial) => this.update(state, partial);
				// pi's signal parameter is optional: an execute that does not declare it never pays for one.
				const signal = tool.execute.length >= 3 ? ctx.signal : undefined;
				return tool.execute(invocation.callId, invocation.arguments, signal, onUpdate, ctx);
			}
			case "command":
				return registered(registry.commands, "command", invocation.name).handler(invocation.arguments, ctx);
			case "shortcut":
				return registered(registry.shortcuts, "shortcut", invocation.key).handler(ctx);
			case "event":
				return this.runHooks(invocation.event.name, invocation.event.data ?? null, ctx, state);
			case "provider": {
				const provider = registered(registry.providers, "provider", invocation.providerId);
				const emit = (event) => this.update(state, event);
				if (typeof provider.stream === "function") return streamProvider(provider, invocation, emit, () => state.done);
				return completeProvider(provider, invocation, emit, ctx);
			}
			case "overlay_render":
				return renderOverlay(registry.overlays, invocation.id, ctx);
			case "overlay_event":
				return overlayEvent(registry.overlays, invocation.id, invocation.event, ctx);
			case "render_message": {
				const { messageType, message, expanded } = invocation.request;
				return registered(registry.renderers, "message renderer", messageType)(
					message,
					{ expanded: expanded === true },
					ctx,
				);
			}
			default:
				throw new InvocationFailure(
					"unsupported_request",
					`${invocation.kind} invocations are unavailable in the ${this.runtime} runtime`,
				);
		}
	}

	/** A progress value (tool update, provider stream event); dropped once the invocation has been answered. */
	update(state, partial) {
		if (state.done) return;
		this.send({ type: "update", id: state.id, value: partial === undefined ? {} : partial });
	}

	/**
	 * Every handler of the hook in registration order, each seeing a frozen `{type, ...data}` (plus the live
	 * signal where rpi gives one) with the earlier answers fed forward; hook-table.mjs says how they reduce.
	 */
	async runHooks(name, data, ctx, state) {
		const event = hookEvent(name, data);
		const before = inPlaceBefore(name, event);
		const signal = SIGNAL_EVENTS.includes(name) ? this.signalOf(state) : undefined;
		let merged;
		for (const handler of this.registry.hooks.get(name) ?? []) {
			const view = Object.freeze(signal ? { ...event, signal } : { ...event });
			const result = await handler(view, ctx);
			if (result === undefined || result === null) continue;
			merged = combine(name, merged, result);
			feedForward(name, event, result);
			if (stopsChain(name, result)) break;
		}
		merged = foldInPlace(name, merged, before, event);
		return merged ?? null;
	}

	// ── runtime requests (extension → host) ──────────────────────────────────

	/**
	 * Sends a UI or action request and resolves with the host's answer. Throws synchronously outside the live
	 * phase: the host would fail the whole load for a request during it, so it is a programming error.
	 */
	request(request, options = {}) {
		const invocation = "invocation" in options ? options.invocation : this.scope.current();
		const signal = options.signal;
		if (this.phase !== "live") {
			throw new Error(
				`runtime requests (UI, session actions) are unavailable during the ${this.phase} phase; ` +
					"call them from tool, command or event handlers, not from the extension factory",
			);
		}
		if (invocation?.cancelled || signal?.aborted) {
			return quiet(Promise.reject(new ExtensionRequestError("cancelled", "the request was cancelled")));
		}
		const id = `${this.requestPrefix}${++this.nextRequestId}`; // ours to choose; the host only needs them unique
		const promise = new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject, invocation });
			if (invocation) {
				if (!invocation.requests) invocation.requests = new Set();
				invocation.requests.add(id);
			}
			try {
				this.send({ type: "request", id, request });
			} catch (error) {
				this.forget(id);
				reject(error);
			}
		});
		if (signal) {
			// An author's DialogOptions.signal dismisses the dialog: cancel the request at the host.
			const onAbort = () => this.cancelRequest(id, new ExtensionRequestError("cancelled", "the request was cancelled"));
			signal.addEventListener("abort", onAbort, { once: true });
			quiet(promise.finally(() => signal.removeEventListener("abort", onAbort)));
		}
		return quiet(promise);
	}

	/** Our side gave up: tell the host (it still answers, and that answer is ignored) and reject now. */
	cancelRequest(id, error) {
		const waiting = this.pending.get(id);
		if (!waiting) return;
		this.forget(id);
		try {
			this.send({ type: "cancel", id });
		} catch {
			// nothing to tell if the channel is gone
		}
		waiting.reject(error);
	}

	forget(id) {
		this.pending.get(id)?.invocation?.requests?.delete(id);
		this.pending.delete(id);
	}

	/**
	 * rpi's gate in the guest, with its text: a capability the manifest does not declare fails the call at once,
	 * without a request. As a rejection rather than a throw, so a fire-and-forget call stays fire-and-forget.
	 */
	undeclared(capability, what) {
		if (this.manifest.capabilities.includes(capability)) return undefined;
		return quiet(
			Promise.reject(
				new Error(`${what} requires the ${capability} capability (add it to the manifest's capabilities)`),
			),
		);
	}

	/** A UI request whose answer `map` turns into what pi's ExtensionUIContext returns. */
	ui(request, map, options = {}) {
		const refused = this.undeclared("ui", "UI action");
		if (refused) return refused;
		const ui = { request, ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}) };
		const forward = {};
		if ("invocation" in options) forward.invocation = options.invocation;
		if (options.signal) forward.signal = options.signal;
		return quiet(this.request({ kind: "ui", ui }, forward).then(map));
	}

	action(action, invocation) {
		const refused = this.undeclared("session_actions", "session action");
		if (refused) return refused;
		return this.request({ kind: "action", action }, invocation === undefined ? {} : { invocation });
	}

	// ── what the factory gets ────────────────────────────────────────────────

	createApi() {
		const registry = this.registry;
		const snapshot = () => this.snapshot();
		return {
			events: new EventBus(this.transport.log),
			registerTool: (tool) => registry.registerTool(tool),
			registerCommand: (name, options) => registry.registerCommand(name, options),
			registerShortcut: (key, options) => registry.registerShortcut(key, options),
			registerFlag: (name, options) => registry.registerFlag(name, options),
			registerProvider: (idOrOptions, config) => registry.registerProvider(idOrOptions, config),
			unregisterProvider: (id) => registry.unregisterProvider(id),
			registerOverlay: (options) => registry.registerOverlay(options),
			registerMessageRenderer: (messageType, render) => registry.registerMessageRenderer(messageType, render),
			on: (event, handler) => registry.on(event, handler),
			...snapshotGetters(snapshot, (name) => registry.flagDefault(name)),
			// For runtimes built on a guest (the native plugin host): a protocol v1 runtime request as is, and the
			// context snapshot pi.* calls read.
			runtimeRequest: (request, options = {}) =>
				this.request(request, options.signal ? { signal: options.signal } : {}),
			contextSnapshot: snapshot,
			// pi.* calls find their invocation through the scope, so a cancel reaches them too.
			...sessionActions((action) => this.action(action)),
		};
	}

	/** The snapshot of the invocation in progress (if it has one); outside any invocation the latest one seen. */
	snapshot() {
		const invocation = this.scope.current();
		return invocation ? invocation.context : this.latestSnapshot;
	}
}

function registered(map, kind, name) {
	const entry = map.get(name);
	if (!entry) throw new Error(`unknown ${kind} ${name}`);
	return entry;
}
