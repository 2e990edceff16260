/**
 * pier process-extension kit for Node: write a protocol v1 extension the way you
 * write an in-process pi extension.
 *
 *   #!/usr/bin/env node
 *   import { runExtension } from "./kit/node/index.mjs";
 *   runExtension({ id: "my-ext", capabilities: ["tools"] }, (pi) => {
 *     pi.registerTool({ name: "hi", parameters: { type: "object" }, execute: async () => ({ content: [] }) });
 *   });
 *
 * The kit owns the process: stdin/stdout carry LF-delimited JSON frames and
 * nothing else, so anything the extension prints (console.log, process.stdout)
 * is redirected to stderr, which the host keeps for its error messages.
 *
 * Plain JavaScript with a hand-written index.d.ts, so it needs no build step and
 * no dependencies beyond Node ≥ 20. docs/protocol-v1.md is the wire reference.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { combine, feedForward, foldInPlace, hookEvent, inPlaceBefore, stopsChain } from "../core/hook-table.mjs";

export const PROTOCOL_VERSION = 1;
/** The host's default limit (docs/protocol-v1.md §3); the bytes of a frame excluding its LF. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;

/** A runtime request the host answered with a failure; `code` is the protocol error code. */
export class ExtensionRequestError extends Error {
	constructor(code, message) {
		super(`${code}: ${message}`);
		this.name = "ExtensionRequestError";
		this.code = code;
	}
}

/** An outbound frame over the limit: refused before anything is written. */
export class FrameTooLargeError extends Error {
	constructor(bytes, maxFrameBytes) {
		super(`extension protocol frame of ${bytes} bytes exceeds ${maxFrameBytes} bytes`);
		this.name = "FrameTooLargeError";
		this.code = "frame_too_large";
	}
}

/** A failure the kit itself answers an invocation with (unknown tool, unsupported kind…). */
class InvocationFailure extends Error {
	constructor(code, message) {
		super(message);
		this.code = code;
	}
}

// ── framing ──────────────────────────────────────────────────────────────────

/** One frame as one line: compact JSON + LF, refused (not truncated) when over the limit. */
export function encodeFrame(frame, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES) {
	const json = JSON.stringify(frame);
	// A UTF-16 code unit is at most 3 UTF-8 bytes: most frames need no byte count at all.
	if (json.length * 3 > maxFrameBytes) {
		const bytes = Buffer.byteLength(json, "utf8");
		if (bytes > maxFrameBytes) throw new FrameTooLargeError(bytes, maxFrameBytes);
	}
	return `${json}\n`;
}

/**
 * Splits a byte stream on LF only. Not `readline`: it also breaks lines at
 * U+2028/U+2029 and CR, which JSON strings may legally contain raw. Works on
 * bytes so a multi-byte character split across chunks is decoded whole.
 */
export class LineSplitter {
	constructor(maxFrameBytes, onLine) {
		this.maxFrameBytes = maxFrameBytes;
		this.onLine = onLine;
		this.pending = [];
		this.pendingBytes = 0;
	}

	push(chunk) {
		let start = 0;
		while (start < chunk.length) {
			const lf = chunk.indexOf(0x0a, start);
			const piece = chunk.subarray(start, lf === -1 ? chunk.length : lf);
			// Checked before buffering, so a runaway line never holds more than one frame of memory.
			if (this.pendingBytes + piece.length > this.maxFrameBytes) {
				throw new Error(`host frame exceeds ${this.maxFrameBytes} bytes`);
			}
			if (lf === -1) {
				this.pending.push(Buffer.from(piece));
				this.pendingBytes += piece.length;
				return;
			}
			const line = this.pending.length === 0 ? piece : Buffer.concat([...this.pending, piece]);
			this.pending = [];
			this.pendingBytes = 0;
			this.onLine(line);
			start = lf + 1;
		}
	}
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** One line → one frame object; the host never sends blank, CRLF or non-JSON lines, so those are fatal. */
function parseLine(line) {
	if (line.length === 0) throw new Error("blank line in the host's frame stream");
	if (line[line.length - 1] === 0x0d) throw new Error("CRLF line ending in the host's frame stream");
	return parseText(utf8.decode(line));
}

/** `parseLine` for a line already decoded (without its LF). */
function parseTextLine(text) {
	if (text.length === 0) throw new Error("blank line in the host's frame stream");
	if (text.charCodeAt(text.length - 1) === 0x0d) throw new Error("CRLF line ending in the host's frame stream");
	return parseText(text);
}

function parseText(text) {
	const frame = JSON.parse(text);
	if (frame === null || typeof frame !== "object" || typeof frame.type !== "string") {
		throw new Error("host frame is not an object with a type");
	}
	return frame;
}

const success = (value) => ({ status: "success", value: value === undefined ? null : value });
const failure = (code, message) => ({ status: "failure", error: { code, message } });
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * pi's fire-and-forget calls (notify, setStatus, sendMessage…) return void there;
 * here they return promises that an author may never await. Marking them handled
 * keeps a host-side failure from becoming an unhandled rejection; `await` still throws.
 */
function quiet(promise) {
	promise.catch(() => {});
	return promise;
}

// ── the runtime ──────────────────────────────────────────────────────────────

let started = false;

/**
 * Runs the extension: answers the host's hello with `manifest`, calls
 * `factory(pi)` on the host's `load` request, then serves invocations until the
 * host shuts it down or stdin ends.
 */
export function runExtension(manifest, factory, options = {}) {
	if (started) throw new Error("runExtension may be called only once per process");
	if (typeof factory !== "function") throw new TypeError("runExtension(manifest, factory): factory must be a function");
	started = true;
	const runtime = new Runtime(normalizeManifest(manifest), factory, options);
	runtime.start();
}

function normalizeManifest(manifest = {}) {
	const id = manifest.id ?? process.env.PI_EXTENSION_ID;
	if (!id) throw new Error("runExtension: manifest.id is required (or PI_EXTENSION_ID must be set)");
	return {
		id,
		name: manifest.name ?? id,
		version: manifest.version ?? "0.0.0",
		capabilities: [...new Set(manifest.capabilities ?? [])],
		uiCapabilities: [...new Set(manifest.uiCapabilities ?? [])],
	};
}

class Runtime {
	constructor(manifest, factory, options) {
		this.manifest = manifest;
		this.factory = factory;
		this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		/** handshake → loading → live (or failed); registrations only while loading, requests only when live. */
		this.phase = "handshake";
		this.host = { cwd: process.cwd(), mode: "print", projectTrusted: false };
		this.tools = new Map();
		this.commands = new Map();
		this.shortcuts = new Map();
		this.flags = new Map();
		this.hooks = new Map();
		this.providers = new Map();
		/** Host request id → running invocation. */
		this.invocations = new Map();
		/** Our request id → awaiting caller. */
		this.pending = new Map();
		this.nextRequestId = 0;
		/** The most recent context snapshot, for pi.getFlag & co. called outside any invocation. */
		this.latestSnapshot = undefined;
		/** Which invocation a `pi.*` call belongs to, across awaits (for snapshots and cancellation). */
		this.current = new AsyncLocalStorage();
		this.events = new EventBus();
		this.api = this.createApi();
	}

	start() {
		this.claimStdout();
		// An author's forgotten promise must not take the extension down with all its registrations.
		process.on("unhandledRejection", (reason) => {
			process.stderr.write(`[${this.manifest.id}] unhandled rejection: ${reason?.stack ?? reason}\n`);
		});
		const splitter = new LineSplitter(this.maxFrameBytes, (line) => this.dispatch(parseLine(line)));
		process.stdin.on("data", (chunk) => {
			try {
				this.receive(chunk, splitter);
			} catch (error) {
				this.fatal(`protocol error: ${messageOf(error)}`);
			}
		});
		// The host closing our stdin is the end of the session for us.
		process.stdin.on("end", () => process.exit(0));
		process.stdin.on("error", () => process.exit(0));
	}

	/**
	 * The common case, nothing buffered and whole lines up to the chunk's last LF within the limit, decodes
	 * those lines at once; anything else (or text that is not UTF-8) goes line by line through the splitter,
	 * which dispatches every line before the faulty one exactly as it would have.
	 */
	receive(chunk, splitter) {
		const last = splitter.pendingBytes > 0 ? -1 : chunk.lastIndexOf(0x0a);
		let text;
		if (last >= 0 && last <= this.maxFrameBytes) {
			try {
				text = utf8.decode(chunk.subarray(0, last));
			} catch {
				// not UTF-8: the splitter finds the line and fails on it
			}
		}
		// A BOM starting any line but the first would survive a decode of the whole (the decoder drops one per call).
		if (text === undefined || text.includes("\uFEFF")) return splitter.push(chunk);
		let start = 0;
		for (;;) {
			const lf = text.indexOf("\n", start);
			this.dispatch(parseTextLine(lf === -1 ? text.slice(start) : text.slice(start, lf)));
			if (lf === -1) break;
			start = lf + 1;
		}
		if (last + 1 < chunk.length) splitter.push(chunk.subarray(last + 1));
	}

	/** stdout is the protocol channel: keep its writer for frames and send every other write to stderr. */
	claimStdout() {
		const stdout = process.stdout;
		this.writeFrame = stdout.write.bind(stdout);
		stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
		stdout.on("error", () => process.exit(0)); // EPIPE: the host is gone
	}

	fatal(message) {
		process.stderr.write(`[${this.manifest.id}] ${message}\n`);
		process.exit(1);
	}

	/**
	 * A lone frame leaves at once; frames written after it while the same callback runs (its microtasks
	 * included) leave together in one write, so pipelined calls do not cost a syscall each. Not held to the end
	 * of the event-loop turn: libuv may read several chunks of requests in one turn, and the answers to the
	 * first should not wait for the last.
	 */
	send(frame) {
		const line = encodeFrame(frame, this.maxFrameBytes);
		if (this.outbox !== undefined) {
			this.outbox += line;
			return;
		}
		this.writeFrame(line);
		this.outbox = "";
		process.nextTick(this.flush);
	}

	flush = () => {
		const lines = this.outbox;
		this.outbox = undefined;
		if (lines.length > 0) this.writeFrame(lines);
	};

	/** Answers a host request exactly as asked, or with why that was impossible. */
	respond(id, result) {
		try {
			this.send({ type: "response", id, result });
		} catch (error) {
			const code = error instanceof FrameTooLargeError ? "frame_too_large" : "extension_error";
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
				// No reply is expected and the host kills the process group right after: leave at once.
				return process.exit(0);
			default:
				process.stderr.write(`[${this.manifest.id}] ignoring unknown host frame type ${frame.type}\n`);
		}
	}

	onHello(frame) {
		if (frame.protocolVersion !== PROTOCOL_VERSION) {
			this.fatal(`host speaks protocol ${frame.protocolVersion}; this kit speaks ${PROTOCOL_VERSION}`);
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
				return void this.invoke(id, request.invocation, request.context);
			default:
				return this.respond(id, failure("unsupported_request", `unsupported host request ${request.kind}`));
		}
	}

	async load(id) {
		this.phase = "loading";
		try {
			await this.factory(this.api);
		} catch (error) {
			this.phase = "failed";
			return this.respond(id, failure("load_failed", messageOf(error)));
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

	/** The host gave up on an invocation: abort its signal, drop its own requests, answer `cancelled`. */
	onCancel(id) {
		const invocation = this.invocations.get(id);
		if (!invocation) return;
		const error = new ExtensionRequestError("cancelled", "the host cancelled this invocation");
		invocation.cancelled = true;
		invocation.controller?.abort(error);
		for (const requestId of [...(invocation.requests ?? [])]) this.cancelRequest(requestId, error);
		this.finish(invocation, failure("cancelled", "the invocation was cancelled"));
	}

	// ── invocations ──────────────────────────────────────────────────────────

	invoke(id, invocation, context) {
		if (context) this.latestSnapshot = context;
		// The AbortController (and the set of the invocation's own requests) are made on first use: most calls
		// never need them, and creating them is among the largest costs of a pipelined call.
		const state = { id, context, controller: undefined, cancelled: false, requests: undefined, done: false };
		this.invocations.set(id, state);
		const ctx = this.createContext(state);
		let value;
		try {
			value = this.current.run(state, () => this.route(invocation, ctx, state));
		} catch (error) {
			value = Promise.reject(error);
		}
		// Settled on a later microtask even when the handler returned synchronously, like an `await`, so a
		// `cancel` read in the same chunk still wins.
		const tool = invocation.kind === "tool";
		Promise.resolve(value).then(
			(result) => this.finish(state, success(tool ? (result ?? { content: [] }) : result)),
			(error) => {
				if (state.cancelled) this.finish(state, failure("cancelled", "the invocation was cancelled"));
				else if (error instanceof InvocationFailure) this.finish(state, failure(error.code, error.message));
				else this.finish(state, failure("extension_error", messageOf(error)));
			},
		);
	}

	finish(state, result) {
		if (state.done) return; // already answered (cancelled)
		state.done = true;
		this.invocations.delete(state.id);
		this.respond(state.id, result);
	}

	/** Runs the handler; its value, or a promise of it (a tool's missing result is filled in by `invoke`). */
	route(invocation, ctx, state) {
		switch (invocation.kind) {
			case "tool": {
				const tool = this.registered(this.tools, "tool", invocation.name);
				const onUpdate = (partial) => this.update(state, partial);
				// pi's signal parameter is optional: an execute that does not declare it never pays for one.
				const signal = tool.execute.length >= 3 ? ctx.signal : undefined;
				return tool.execute(invocation.callId, invocation.arguments, signal, onUpdate, ctx);
			}
			case "command":
				return this.registered(this.commands, "command", invocation.name).handler(invocation.arguments, ctx);
			case "shortcut":
				return this.registered(this.shortcuts, "shortcut", invocation.key).handler(ctx);
			case "event":
				return this.runHooks(invocation.event.name, invocation.event.data ?? null, ctx);
			case "provider":
				return this.complete(invocation, ctx, state);
			default:
				throw new InvocationFailure(
					"unsupported_request",
					`this extension does not serve ${invocation.kind} invocations`,
				);
		}
	}

	registered(map, kind, name) {
		const entry = map.get(name);
		if (!entry) throw new InvocationFailure("not_registered", `no ${kind} "${name}" is registered`);
		return entry;
	}

	/**
	 * pier addition: a model of a registered provider answers. The handler returns the whole assistant message
	 * (pi-ai's AssistantMessage); it may stream text before that with `request.emit({type:"text_delta",delta})`.
	 */
	async complete(invocation, ctx, state) {
		const provider = this.registered(this.providers, "provider", invocation.providerId);
		const request = {
			providerId: invocation.providerId,
			model: invocation.model ?? null,
			messages: invocation.messages ?? [],
			systemPrompt: invocation.systemPrompt,
			tools: invocation.tools ?? [],
			options: invocation.options ?? null,
			sessionId: invocation.sessionId,
			emit: (event) => this.update(state, event),
		};
		const message = await provider.complete(request, ctx);
		if (message === null || typeof message !== "object" || Array.isArray(message)) {
			throw new Error(
				`provider "${invocation.providerId}": complete() must return an assistant message object, got ${message === null ? "null" : typeof message}`,
			);
		}
		return message;
	}

	/** A progress value for a tool; dropped once the invocation has been answered. */
	update(state, partial) {
		if (state.done) return;
		this.send({ type: "update", id: state.id, value: partial ?? {} });
	}

	async runHooks(name, data, ctx) {
		const event = hookEvent(name, data);
		const before = inPlaceBefore(name, event);
		let merged;
		for (const handler of this.hooks.get(name) ?? []) {
			const result = await handler(event, ctx);
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
	 * Sends a UI or action request and resolves with the host's answer. Throws
	 * synchronously outside the live phase: the host would fail the whole load
	 * for a request during it, so it is a programming error, not a rejection.
	 */
	request(request, { invocation = this.current.getStore(), signal } = {}) {
		if (this.phase !== "live") {
			throw new Error(
				`runtime requests (UI, session actions) are unavailable during the ${this.phase} phase; ` +
					"call them from tool, command or event handlers, not from the extension factory",
			);
		}
		if (invocation?.cancelled || signal?.aborted) {
			return quiet(Promise.reject(new ExtensionRequestError("cancelled", "the request was cancelled")));
		}
		const id = `kit-${++this.nextRequestId}`; // ids are ours to choose; the host only needs them unique
		const promise = new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject, invocation });
			if (invocation) {
				invocation.requests ??= new Set();
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

	/** A UI request whose answer `map` turns into what pi's ExtensionUIContext returns. */
	ui(request, map, { timeout, signal, invocation } = {}) {
		const ui = { request, ...(timeout !== undefined ? { timeoutMs: timeout } : {}) };
		return quiet(this.request({ kind: "ui", ui }, { invocation, signal }).then(map));
	}

	action(action, invocation, map = (value) => value) {
		return quiet(this.request({ kind: "action", action }, { invocation }).then(map));
	}

	// ── what handlers see ────────────────────────────────────────────────────

	createApi() {
		return {
			events: this.events,
			registerTool: (tool) => this.registerTool(tool),
			registerCommand: (name, options) => this.registerCommand(name, options),
			registerShortcut: (key, options) => this.registerShortcut(key, options),
			registerFlag: (name, options) => this.registerFlag(name, options),
			registerProvider: (id, config) => this.registerProvider(id, config),
			on: (event, handler) => this.on(event, handler),
			getFlag: (name) => this.getFlag(name),
			// pier additions for runtimes built on the kit (the native plugin host): a protocol v1 runtime request
			// as is, and the context snapshot pi.* calls read.
			runtimeRequest: (request, options = {}) =>
				this.request(request, options.signal ? { signal: options.signal } : {}),
			contextSnapshot: () => this.snapshot(),
			getSessionName: () => this.snapshot()?.sessionName,
			getThinkingLevel: () => this.snapshot()?.thinkingLevel,
			// pi.* calls find their invocation through AsyncLocalStorage, so a cancel reaches them too.
			...this.sessionActions(() => this.current.getStore()),
		};
	}

	/** The snapshot of the invocation in progress (if it has one); outside any invocation the latest one seen. */
	snapshot() {
		const invocation = this.current.getStore();
		return invocation ? invocation.context : this.latestSnapshot;
	}

	/** pi's session actions; `owner()` names the invocation a call belongs to. */
	sessionActions(owner) {
		const act = (action, map) => this.action(action, owner(), map);
		return {
			sendMessage: (message, options = {}) =>
				act(
					{
						kind: "send_message",
						message: {
							customType: message.customType,
							content: message.content,
							display: message.display ?? true,
							...(message.details !== undefined ? { details: message.details } : {}),
						},
						delivery: options.deliverAs ?? "steer",
						...(options.triggerTurn !== undefined ? { triggerTurn: options.triggerTurn } : {}),
					},
					() => undefined,
				),
			sendUserMessage: (content, options = {}) =>
				act({ kind: "send_user_message", content, delivery: options.deliverAs ?? "steer" }, () => undefined),
			appendEntry: (customType, data) =>
				act({ kind: "append_entry", customType, ...(data !== undefined ? { data } : {}) }),
			setSessionName: (name) => act({ kind: "set_session_name", name }, () => undefined),
			setLabel: (entryId, label) =>
				act({ kind: "set_label", entryId, ...(label !== undefined ? { label } : {}) }, () => undefined),
			getActiveTools: () => act({ kind: "get_active_tools" }),
			getAllTools: () => act({ kind: "get_all_tools" }),
			setActiveTools: (toolNames) => act({ kind: "set_active_tools", toolNames }, () => undefined),
			getCommands: () => act({ kind: "get_commands" }),
			setModel: (model) => act({ kind: "set_model", model }),
			setThinkingLevel: (level) => act({ kind: "set_thinking_level", level }),
			// pier additions: the live values (the snapshot's may be older) and the session's branch.
			fetchSystemPrompt: () => act({ kind: "get_system_prompt" }),
			fetchThinkingLevel: () => act({ kind: "get_thinking_level" }),
			getSessionBranch: () => act({ kind: "get_session_branch" }),
		};
	}

	/** One per invocation: a class, so a pipelined call allocates a few fields, not dozens of closures. */
	createContext(state) {
		return new InvocationContext(this, state);
	}

	createUi(state) {
		const ui = (request, map, options = {}) => this.ui(request, map, { ...options, invocation: state });
		const acknowledged = () => undefined;
		const answer = (type, read) => (response) => (response.type === type ? read(response) : undefined);
		return {
			select: (title, options, opts) =>
				ui(
					{ type: "select", title, options: options.map(selectOption) },
					answer("selected", (r) => r.value),
					opts,
				),
			confirm: (title, message, opts) =>
				ui({ type: "confirm", title, message }, (r) => r.type === "confirmed" && r.confirmed === true, opts),
			input: (title, placeholder, opts) =>
				ui(
					{ type: "input", title, ...(placeholder !== undefined ? { placeholder } : {}) },
					answer("input", (r) => r.value),
					opts,
				),
			editor: (title, prefill, opts) =>
				ui(
					{ type: "editor", title, ...(prefill !== undefined ? { prefill } : {}) },
					answer("edited", (r) => r.value),
					opts,
				),
			form: (title, fields, opts) => {
				let wire;
				try {
					wire = formFields(fields);
				} catch (error) {
					return quiet(Promise.reject(error));
				}
				return ui(
					{ type: "form", title, fields: wire },
					answer("form", (r) => r.values),
					opts,
				);
			},
			notify: (message, level = "info") => ui({ type: "notify", message, level }, acknowledged),
			setStatus: (key, text) => ui({ type: "status", key, ...(text !== undefined ? { text } : {}) }, acknowledged),
			setWidget: (key, lines, options = {}) => {
				if (typeof lines === "function") throw new TypeError("process extensions can only set string[] widgets");
				const placement =
					options.placement === "belowEditor" || options.placement === "below_editor" ? "below_editor" : "above_editor";
				return ui({ type: "widget", key, ...(lines !== undefined ? { lines } : {}), placement }, acknowledged);
			},
			setTitle: (title) => ui({ type: "title", title }, acknowledged),
			setEditorText: (text) => ui({ type: "set_editor_text", text }, acknowledged),
			getEditorText: () => ui({ type: "get_editor_text" }, (r) => r.value),
			pasteToEditor: (text) => ui({ type: "paste_to_editor", text }, acknowledged),
			setWorkingMessage: (message) =>
				ui({ type: "set_working_message", ...(message !== undefined ? { message } : {}) }, acknowledged),
			setWorkingVisible: (visible) => ui({ type: "set_working_visible", visible }, acknowledged),
			setWorkingIndicator: (options) =>
				ui({ type: "set_working_indicator", ...(options !== undefined ? { options } : {}) }, acknowledged),
			setHiddenThinkingLabel: (label) =>
				ui({ type: "set_hidden_thinking_label", ...(label !== undefined ? { label } : {}) }, acknowledged),
			getAllThemes: () => ui({ type: "get_all_themes" }, (r) => r.themes.map((t) => ({ name: t.name, path: t.path }))),
			getTheme: (name) => ui({ type: "get_theme", name }, (r) => r.theme),
			setTheme: (theme) =>
				ui({ type: "set_theme", name: typeof theme === "string" ? theme : theme.name }, (r) => ({
					success: r.success,
					...(r.error !== undefined ? { error: r.error } : {}),
				})),
			getToolsExpanded: () => ui({ type: "get_tools_expanded" }, (r) => r.expanded),
			setToolsExpanded: (expanded) => ui({ type: "set_tools_expanded", expanded }, acknowledged),
		};
	}

	// ── registrations (load phase only) ──────────────────────────────────────

	/** Registrations exist only while the host collects them: between its `load` request and our answer. */
	assertLoading(what, capability) {
		if (this.phase !== "loading") {
			throw new Error(
				`${what} is only allowed while the extension loads (in the factory), not in the ${this.phase} phase`,
			);
		}
		if (!this.manifest.capabilities.includes(capability)) {
			throw new Error(`${what} needs the "${capability}" capability in the manifest given to runExtension`);
		}
	}

	/** Sent at once, so the host sees registrations in the order they were made. */
	register(what, capability, registration) {
		this.assertLoading(what, capability);
		this.send({ type: "register", registration });
	}

	registerTool(tool) {
		if (typeof tool?.execute !== "function") throw new TypeError("registerTool: execute must be a function");
		if (this.tools.has(tool.name)) throw new Error(`registerTool: duplicate tool "${tool.name}"`);
		const descriptor = {
			name: tool.name,
			label: tool.label ?? tool.name,
			description: tool.description ?? tool.label ?? tool.name,
			// Round-trips through JSON so TypeBox schemas lose their symbol keys, exactly as on the wire.
			parameters: JSON.parse(JSON.stringify(tool.parameters ?? { type: "object", properties: {} })),
			...(tool.capability !== undefined ? { capability: tool.capability } : {}),
			...(tool.executionMode !== undefined ? { executionMode: tool.executionMode } : {}),
			...(tool.promptGuidelines !== undefined ? { promptGuidelines: tool.promptGuidelines } : {}),
		};
		this.register("registerTool", "tools", { kind: "tool", tool: descriptor });
		this.tools.set(tool.name, tool);
	}

	registerCommand(name, options) {
		if (typeof options?.handler !== "function") throw new TypeError("registerCommand: handler must be a function");
		if (this.commands.has(name)) throw new Error(`registerCommand: duplicate command "${name}"`);
		const command = { name, ...(options.description !== undefined ? { description: options.description } : {}) };
		this.register("registerCommand", "commands", { kind: "command", command });
		this.commands.set(name, options);
	}

	registerShortcut(key, options) {
		if (typeof options?.handler !== "function") throw new TypeError("registerShortcut: handler must be a function");
		if (this.shortcuts.has(key)) throw new Error(`registerShortcut: duplicate shortcut "${key}"`);
		const shortcut = { key, ...(options.description !== undefined ? { description: options.description } : {}) };
		this.register("registerShortcut", "commands", { kind: "shortcut", shortcut });
		this.shortcuts.set(key, options);
	}

	registerFlag(name, options) {
		if (this.flags.has(name)) throw new Error(`registerFlag: duplicate flag "${name}"`);
		const flag = {
			name,
			type: options.type,
			...(options.description !== undefined ? { description: options.description } : {}),
			...(options.default !== undefined ? { default: options.default } : {}),
		};
		this.register("registerFlag", "commands", { kind: "flag", flag });
		this.flags.set(name, flag);
	}

	/**
	 * pier addition: a model provider in pi's model registry (`--model <id>/<model>`, the chamber's picker).
	 * `config.complete(request, ctx)` answers each turn with a full assistant message. Without `models` the
	 * provider offers one model, `default`, and whichever model id `--model <id>/…` asks for.
	 */
	registerProvider(id, config) {
		if (typeof config?.complete !== "function") throw new TypeError("registerProvider: complete must be a function");
		if (this.providers.has(id)) throw new Error(`registerProvider: duplicate provider "${id}"`);
		const models = config.models?.map((m) => (typeof m === "string" ? { id: m } : m));
		const provider = {
			id,
			api: config.api ?? id,
			...(config.label !== undefined ? { label: config.label } : {}),
			...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}),
			...(config.capabilities !== undefined ? { capabilities: config.capabilities } : {}),
			...(models !== undefined ? { models: JSON.parse(JSON.stringify(models)) } : {}),
		};
		this.register("registerProvider", "provider", { kind: "provider", provider });
		this.providers.set(id, config);
	}

	/** Every handler runs; the host hears of the event name once. */
	on(event, handler) {
		if (typeof handler !== "function") throw new TypeError("on: handler must be a function");
		const handlers = this.hooks.get(event);
		if (handlers) {
			this.assertLoading(`pi.on("${event}")`, "event_hooks");
			handlers.push(handler);
			return;
		}
		this.register(`pi.on("${event}")`, "event_hooks", { kind: "event_hook", hook: { event } });
		this.hooks.set(event, [handler]);
	}

	getFlag(name) {
		const values = this.snapshot()?.flagValues;
		if (values && Object.hasOwn(values, name)) return values[name];
		return this.flags.get(name)?.default;
	}
}

const FORM_FIELD_TYPES = ["text", "textarea", "number", "select", "checkbox"];

/**
 * pier addition: PiChamber's form fields in the wire's shape (known keys only, scalar initial values as text), so
 * a wrong JS type fails this call instead of being a protocol violation. What a form may contain (ids, labels,
 * options, limits) the host checks, refusing a bad form with its reason.
 */
function formFields(fields) {
	if (!Array.isArray(fields)) throw new TypeError("ctx.ui.form: fields must be an array");
	if (fields.length > 12) throw new Error(`ctx.ui.form: a form has at most 12 fields (got ${fields.length})`);
	return fields.map((field, index) => {
		const where = `ctx.ui.form: field ${index + 1}`;
		if (field === null || typeof field !== "object" || Array.isArray(field)) {
			throw new TypeError(`${where} must be an object`);
		}
		const type = field.type ?? "text";
		if (typeof field.id !== "string") throw new TypeError(`${where} needs a string id`);
		if (typeof field.label !== "string") throw new TypeError(`${where} needs a string label`);
		if (!FORM_FIELD_TYPES.includes(type)) {
			throw new TypeError(
				`${where} has unknown type ${JSON.stringify(type)} (expected ${FORM_FIELD_TYPES.join(", ")})`,
			);
		}
		const out = { id: field.id, label: field.label, type };
		if (field.required === true) out.required = true;
		if (typeof field.placeholder === "string") out.placeholder = field.placeholder;
		if (field.options !== undefined) {
			if (!Array.isArray(field.options) || !field.options.every((o) => typeof o === "string")) {
				throw new TypeError(`${where}: options must be an array of strings`);
			}
			out.options = [...field.options];
		}
		if (["string", "number", "boolean"].includes(typeof field.initial)) out.initial = String(field.initial);
		for (const key of ["min", "max"]) {
			if (field[key] === undefined) continue;
			if (!Number.isFinite(field[key])) throw new TypeError(`${where}: ${key} must be a finite number`);
			out[key] = field[key];
		}
		return out;
	});
}

function selectOption(option) {
	if (typeof option === "string") return { value: option, label: option };
	return {
		value: option.value,
		label: option.label ?? option.value,
		...(option.description !== undefined ? { description: option.description } : {}),
	};
}

/** pi's `pi.events`: an in-process bus between handlers of this extension. */
class EventBus {
	constructor() {
		this.handlers = new Map();
	}

	on(channel, handler) {
		const set = this.handlers.get(channel) ?? new Set();
		this.handlers.set(channel, set);
		set.add(handler);
		return () => set.delete(handler);
	}

	emit(channel, data) {
		for (const handler of [...(this.handlers.get(channel) ?? [])]) {
			try {
				const result = handler(data);
				if (result && typeof result.catch === "function") result.catch((e) => logBusError(channel, e));
			} catch (error) {
				logBusError(channel, error);
			}
		}
	}
}

function logBusError(channel, error) {
	process.stderr.write(`pi.events handler for "${channel}" failed: ${error?.stack ?? error}\n`);
}

const SESSION_ACTIONS = [
	"fetchSystemPrompt",
	"fetchThinkingLevel",
	"getSessionBranch",
	"sendMessage",
	"sendUserMessage",
	"appendEntry",
	"setSessionName",
	"setLabel",
	"getActiveTools",
	"getAllTools",
	"setActiveTools",
	"getCommands",
	"setModel",
	"setThinkingLevel",
];

/**
 * The `ctx` handed to handlers. `ui`, the signal and the session actions are
 * made on first use; methods are bound on first read, so `const { ui, abort } = ctx`
 * works as it does with pi's plain-object context.
 */
class InvocationContext {
	#kit;
	#state;
	#ui;
	#actions;

	constructor(kit, state) {
		this.#kit = kit;
		this.#state = state;
		const { mode, cwd, projectTrusted } = kit.host;
		const snapshot = state.context;
		this.cwd = cwd;
		this.mode = mode;
		this.projectTrusted = projectTrusted;
		this.hasUI = (mode === "tui" || mode === "rpc") && kit.manifest.uiCapabilities.length > 0;
		// The invocation's context snapshot (absent when the host has no session attached).
		this.sessionName = snapshot?.sessionName;
		this.sessionId = snapshot?.sessionId;
		this.sessionFile = snapshot?.sessionFile;
		this.model = snapshot?.model;
		this.thinkingLevel = snapshot?.thinkingLevel;
	}

	get signal() {
		const state = this.#state;
		state.controller ??= new AbortController();
		if (state.cancelled) state.controller.abort();
		return state.controller.signal;
	}

	get ui() {
		this.#ui ??= this.#kit.createUi(this.#state);
		return this.#ui;
	}

	isIdle() {
		return this.#state.context?.isIdle;
	}

	hasPendingMessages() {
		return this.#state.context?.hasPendingMessages;
	}

	getContextUsage() {
		const usage = this.#state.context?.contextUsage;
		return (
			usage && { tokens: usage.tokens ?? null, contextWindow: usage.contextWindow, percent: usage.percent ?? null }
		);
	}

	getSystemPrompt() {
		return this.#state.context?.systemPrompt;
	}

	#act(action, map) {
		return this.#kit.action(action, this.#state, map);
	}

	abort() {
		return this.#act({ kind: "abort" }, () => undefined);
	}

	shutdown() {
		return this.#act({ kind: "shutdown" }, () => undefined);
	}

	reload() {
		return this.#act({ kind: "reload" });
	}

	waitForIdle() {
		return this.#act({ kind: "wait_for_idle" }, () => undefined);
	}

	// Session replacement: pi allows it in command handlers only, and the host refuses it elsewhere.
	newSession(options = {}) {
		const { parentSession } = options;
		return this.#act({ kind: "new_session", ...(parentSession !== undefined ? { parentSession } : {}) });
	}

	fork(entryId, options = {}) {
		return this.#act({
			kind: "fork",
			entryId,
			...(options.position !== undefined ? { position: options.position } : {}),
		});
	}

	navigateTree(targetId, options = {}) {
		const known = ["summarize", "customInstructions", "replaceInstructions", "label"];
		const picked = Object.fromEntries(known.filter((k) => options[k] !== undefined).map((k) => [k, options[k]]));
		return this.#act({ kind: "navigate_tree", targetId, ...picked });
	}

	switchSession(sessionPath) {
		return this.#act({ kind: "switch_session", sessionPath });
	}

	compact(options = {}) {
		const { customInstructions, onComplete, onError } = options;
		const result = this.#act({ kind: "compact", ...(customInstructions !== undefined ? { customInstructions } : {}) });
		quiet(result.then(onComplete, onError)); // callbacks are optional, like pi's
		return result;
	}

	sessionAction(name, args) {
		this.#actions ??= this.#kit.sessionActions(() => this.#state);
		return this.#actions[name](...args);
	}
}

for (const name of SESSION_ACTIONS) {
	Object.defineProperty(InvocationContext.prototype, name, {
		configurable: true,
		value(...args) {
			return this.sessionAction(name, args);
		},
	});
}

// Methods read off a context keep working detached, as pi's plain-object methods do.
for (const name of [
	...SESSION_ACTIONS,
	"isIdle",
	"hasPendingMessages",
	"getContextUsage",
	"getSystemPrompt",
	"abort",
	"shutdown",
	"reload",
	"waitForIdle",
	"compact",
	"newSession",
	"fork",
	"navigateTree",
	"switchSession",
]) {
	const method = Object.getOwnPropertyDescriptor(InvocationContext.prototype, name).value;
	Object.defineProperty(InvocationContext.prototype, name, {
		get() {
			const bound = method.bind(this);
			Object.defineProperty(this, name, { value: bound });
			return bound;
		},
	});
}
