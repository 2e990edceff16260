/**
 * One native tool call: execute → poll … → (cancel) → destroy, on the plugin host's main thread.
 *
 * Pending costs no CPU: a tool registered with a waker sleeps until its wake callback fires (from any
 * thread: koffi queues a foreign thread's call to the event loop); one without a waker is polled again after
 * a short backoff (at once, then 1, 2, 4 … up to 50 ms). The agent's abort becomes the plugin's `cancel`;
 * `destroy` runs exactly once whatever happened, after the waker (if any) is unregistered.
 */
import { StepTag } from "./abi.js";
import type { NativeTool } from "./registry.js";
import { type Address, rawCallback, ToolPartialRaw, ToolWakeRaw } from "./tool-ffi.js";

/** rpi's key for the host context in a tool's params (native-abi.md §3.3). */
export const HOST_CONTEXT_KEY = "__rpi";
const MAX_BACKOFF_MS = 50;

export interface ToolResultJson {
	content: Array<Record<string, unknown>>;
	details?: unknown;
	terminate?: boolean;
}

export interface ToolCallOptions {
	callId: string;
	params: unknown;
	host: { cwd?: string | undefined; sessionId?: string | undefined };
	/** Asked for only once a step is pending: an immediate tool never pays for an AbortSignal. */
	signal: () => AbortSignal | undefined;
	onUpdate: (partial: ToolResultJson) => void;
}

/** One call in flight, found by its key from the partial and wake callbacks. */
interface Call {
	tool: NativeTool;
	key: number;
	/** The plugin's handle (nonzero once execute accepted the call). */
	handle: Address;
	onUpdate: (partial: ToolResultJson) => void;
	/** The waker fired since the last poll. */
	woken: boolean;
	/** Resolves the wait for a wake, while one is waited for. */
	waiter: (() => void) | undefined;
}

/** A call executed and polled once, not answered yet: what the first poll said. */
interface Started {
	/** Undefined when execute failed or refused (nothing to destroy). */
	call: Call | undefined;
	first: { kind: "done"; result: ToolResultJson } | { kind: "failed"; error: unknown } | { kind: "pending" };
	/** Polls made so far. */
	polls: number;
}

/**
 * In-flight calls by key: a small integer passed as the poll's user_data and the waker's data (an opaque
 * pointer value the plugin hands back, never dereferenced), so a call allocates no native memory for it.
 */
let nextKey = 1;
const calls = new Map<number, Call>();
let partialCb: Address | undefined;
let wakeCb: Address | undefined;

function callbacks(): { partial: Address; wake: Address } {
	partialCb ??= rawCallback((ptr: Address, len: number, key: number) => {
		const call = calls.get(key);
		// A partial is plugin memory: reclaimed with the tool's own deallocator, never the host's (leaked when
		// the key names no call: nothing says whose it is).
		if (!call) return;
		const text = call.tool.fns.takeRaw(ptr, Number(len));
		if (text !== "") call.onUpdate(parseResult(text));
	}, ToolPartialRaw);
	wakeCb ??= rawCallback((key: number) => {
		const call = calls.get(key);
		if (!call) return;
		call.woken = true;
		call.waiter?.();
	}, ToolWakeRaw);
	return { partial: partialCb, wake: wakeCb };
}

/** rpi's lenient AgentToolResult reader (native-abi.md §2.3); text that is not JSON is one text block. */
export function parseResult(text: string): ToolResultJson {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { content: [{ type: "text", text }] };
	}
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		return { content: [{ type: "text", text }] };
	}
	const record = value as Record<string, unknown>;
	const blocks = Array.isArray(record.content) ? record.content : [];
	const content = blocks.map((block) => {
		const b = (block ?? {}) as Record<string, unknown>;
		if (b.type === "image" && typeof b.data === "string") {
			return { type: "image", data: b.data, mimeType: typeof b.mimeType === "string" ? b.mimeType : "image/png" };
		}
		return { type: "text", text: typeof b.text === "string" ? b.text : "" };
	});
	return {
		content,
		...(record.details !== undefined ? { details: record.details } : {}),
		...(record.terminate === true ? { terminate: true } : {}),
	};
}

/** The last host context's JSON, by its cwd and session id (the same for every call of a session). */
let contextFor: { cwd: string | undefined; sessionId: string | undefined; json: string } | undefined;

function contextJson(host: ToolCallOptions["host"]): string {
	const last = contextFor;
	if (last !== undefined && last.cwd === host.cwd && last.sessionId === host.sessionId) return last.json;
	const json = JSON.stringify({ cwd: host.cwd, sessionId: host.sessionId });
	contextFor = { cwd: host.cwd, sessionId: host.sessionId, json };
	return json;
}

/**
 * The params the plugin sees: the model's, with pier's host context under `__rpi` (overriding the model's).
 * Spliced onto the params' own JSON (which ends in `}`) rather than copied into a new object and serialised.
 */
function paramsWithHost(params: unknown, host: ToolCallOptions["host"]): string {
	const base = params !== null && typeof params === "object" && !Array.isArray(params) ? params : {};
	const context = contextJson(host);
	// The model's own `__rpi` keeps its place in the key order, with the host's value.
	if (Object.hasOwn(base, HOST_CONTEXT_KEY))
		return JSON.stringify({ ...base, [HOST_CONTEXT_KEY]: JSON.parse(context) });
	const body = JSON.stringify(base);
	return body === "{}"
		? `{"${HOST_CONTEXT_KEY}":${context}}`
		: `${body.slice(0, -1)},"${HOST_CONTEXT_KEY}":${context}}`;
}

/**
 * One poll: the result when Done, an error when Err, undefined when Pending (its progress, if any, delivered
 * as a partial update).
 */
function pollOnce(call: Call, partial: Address): ToolResultJson | undefined {
	const { fns, name } = call.tool;
	call.woken = false;
	const tag = fns.poll(call.handle, partial, call.key);
	if (tag !== StepTag.Done && tag !== StepTag.Err && tag !== StepTag.Pending)
		throw new Error(`plugin tool '${name}' returned unknown step tag ${tag}`);
	const text = fns.take();
	if (tag === StepTag.Done) return parseResult(text);
	if (tag === StepTag.Err) throw new Error(text || `plugin tool '${name}' failed`);
	if (text !== "") call.onUpdate(parseResult(text));
	return undefined;
}

/** Unregisters the waker and destroys the handle (exactly once per call). */
function finish(call: Call): void {
	const { fns } = call.tool;
	try {
		fns.setWaker?.(call.handle, 0, 0);
		fns.destroy(call.handle);
	} finally {
		calls.delete(call.key);
	}
}

/** execute, the waker installed, the first poll: never throws (a failure is the outcome). */
function startTool(
	tool: NativeTool,
	callId: string,
	paramsJson: string,
	onUpdate: (partial: ToolResultJson) => void,
): Started {
	const { partial, wake } = callbacks();
	const key = nextKey++;
	if (nextKey > 0x7fff_ffff) nextKey = 1;
	const call: Call = { tool, key, handle: 0, onUpdate, woken: false, waiter: undefined };
	calls.set(key, call);
	try {
		call.handle = tool.fns.execute(callId, paramsJson);
	} catch (error) {
		calls.delete(key);
		return { call: undefined, first: { kind: "failed", error }, polls: 0 };
	}
	if (!call.handle) {
		calls.delete(key);
		const error = new Error(`plugin execute returned null handle for '${tool.name}'`);
		return { call: undefined, first: { kind: "failed", error }, polls: 0 };
	}
	try {
		tool.fns.setWaker?.(call.handle, wake, key);
		const result = pollOnce(call, partial);
		return { call, first: result ? { kind: "done", result } : { kind: "pending" }, polls: 1 };
	} catch (error) {
		return { call, first: { kind: "failed", error }, polls: 1 };
	}
}

/**
 * The answer of a started call: at once when the first poll ended it (destroyed before this returns), else
 * a promise while `drive` polls on, with `options`' updates and abort.
 */
function settleTool(started: Started, options: ToolCallOptions): ToolResultJson | Promise<ToolResultJson> {
	const { call, first } = started;
	if (first.kind === "pending" && call) {
		call.onUpdate = options.onUpdate;
		return drive(call, options, started.polls);
	}
	if (call) finish(call);
	if (first.kind === "failed") throw first.error;
	if (first.kind === "done") return first.result;
	throw new Error(`plugin tool '${started.call?.tool.name}' has no handle`);
}

/**
 * Runs a tool call for the kit. The first poll happens before this returns: a tool that is Done (or fails)
 * at once is answered without a promise or a timer of its own; a pending one continues in `drive`.
 */
export function runTool(tool: NativeTool, options: ToolCallOptions): ToolResultJson | Promise<ToolResultJson> {
	return settleTool(
		startTool(tool, options.callId, paramsWithHost(options.params, options.host), options.onUpdate),
		options,
	);
}

/** A pending call: polled again at each wake (or after a backoff), cancelled by the agent's abort. */
async function drive(call: Call, options: ToolCallOptions, polls: number): Promise<ToolResultJson> {
	const { fns } = call.tool;
	const { partial } = callbacks();
	// Made only before the first wait: an AbortSignal is costly, and a tool that ends on its second (immediate)
	// poll never waits. Nothing can abort the call before it first yields.
	let signal: AbortSignal | undefined;
	let abort: Promise<"aborted"> | undefined;
	try {
		for (let attempt = polls; ; attempt++) {
			// The second poll at once without a waker (a partial-then-result tool finishes in one turn, its frames
			// in one write), then after 1, 2, 4 … ≤ 50 ms; with one, at once if it woke meanwhile.
			const wait = fns.setWaker ? !call.woken : attempt > 1;
			if (wait) {
				if (!abort) {
					signal = options.signal();
					abort = new Promise<"aborted">((resolve) => {
						if (signal?.aborted) resolve("aborted");
						signal?.addEventListener("abort", () => resolve("aborted"), { once: true });
					});
				}
				if (fns.setWaker) {
					await Promise.race([new Promise<void>((resolve) => (call.waiter = resolve)), abort]);
					call.waiter = undefined;
				} else {
					const delay = Math.min(MAX_BACKOFF_MS, 2 ** (attempt - 2));
					await Promise.race([new Promise((resolve) => setTimeout(resolve, delay)), abort]);
				}
			}
			if (signal?.aborted) {
				fns.cancel(call.handle);
				throw new Error("plugin tool cancelled");
			}
			const done = pollOnce(call, partial);
			if (done) return done;
		}
	} finally {
		finish(call);
	}
}
