/**
 * The guest side of protocol v1, written once (docs/protocol-v1.md): the handshake and phases, the factory API,
 * invocations (tools, commands, shortcuts, hooks, providers, overlays, message renderers) and every answer's
 * shape; the extension's own requests are requests.mjs's. A runtime adds only its transport:
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
import { ExtensionRequestError, GuestRequests } from "./requests.mjs";
import { unavailableMethods } from "./unavailable.mjs";

export { ExtensionRequestError };

export const PROTOCOL_VERSION = 1;

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
		/** The extension's requests to the host (requests.mjs). */
		this.requests = new GuestRequests(this, transport.requestPrefix ?? "guest-");
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
				return this.requests.answered(frame);
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

	/** The host gave up on an invocation: abort its signal, cancel its own requests, answer `cancelled`. */
	onCancel(id) {
		const state = this.invocations.get(id);
		if (!state) return;
		const error = new ExtensionRequestError("cancelled", "the host cancelled this invocation");
		state.cancelled = true;
		if (state.controller) state.controller.abort(error);
		for (const requestId of [...(state.requests ?? [])]) this.requests.cancel(requestId, error);
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
			case "render_entry": {
				const { entryType, entry, expanded } = invocation.request;
				return registered(registry.entryRenderers, "entry renderer", entryType)(
					entry,
					{ expanded: expanded === true },
					ctx,
				);
			}
			case "transform_markdown": {
				if (!registry.markdownTransformer) {
					throw new InvocationFailure("unsupported_request", "this extension registered no markdown transformer");
				}
				const { markdown, ...context } = invocation.request;
				const out = registry.markdownTransformer(markdown, context, ctx);
				return typeof out?.then === "function" ? out.then((value) => ({ markdown: value })) : { markdown: out };
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
		// The handlers as the event arrived (pi's rule): one that unsubscribes itself or another does not skip one.
		for (const handler of [...(this.registry.hooks.get(name) ?? [])]) {
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

	// ── what the factory gets ────────────────────────────────────────────────

	createApi() {
		const registry = this.registry;
		const snapshot = () => this.snapshot();
		return {
			// First, so that nothing the guest does offer is shadowed by a name here.
			...unavailableMethods(this.runtime),
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
				this.requests.send(request, options.signal ? { signal: options.signal } : {}),
			contextSnapshot: snapshot,
			// pi's entry renderers and markdown transformer in protocol form (the native plugin host's); not on pi's
			// method names, which stay the "not available" ones process extensions see.
			hostRenderers: Object.freeze({
				registerEntryRenderer: (entryType, render) => registry.registerEntryRenderer(entryType, render),
				registerMarkdownTransformer: (transform, messageTypes) =>
					registry.registerMarkdownTransformer(transform, messageTypes),
			}),
			// pi.* calls find their invocation through the scope, so a cancel reaches them too.
			...sessionActions((action) => this.requests.action(action)),
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
