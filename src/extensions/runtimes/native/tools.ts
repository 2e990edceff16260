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
import { type Address, type FirstStep, rawCallback, ToolPartialRaw, ToolWakeRaw } from "./tool-ffi.js";
import { StepState } from "./tool-step.js";

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
export interface Started {
	/** Undefined when execute failed or refused (nothing to destroy). */
	call: Call | undefined;
	first:
		| {
				kind: "done";
				/** Undefined only beside `text` (a canonical result): `resultOf` parses it when it is needed. */
				result: ToolResultJson | undefined;
				/** The plugin's own JSON text, when it can stand for the value as it is (see `verbatim`). */
				text: string | undefined;
		  }
		| { kind: "failed"; error: unknown }
		| { kind: "pending" };
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

/**
 * Whether parsed result JSON is already what `parseResult` would rebuild (content blocks of exactly
 * `{type:"text",text}` or `{type:"image",data,mimeType}`, at most `terminate: true` beside them, nothing
 * else) and its text one line: then the text itself can stand for the value in a frame (fast-tools.ts).
 * Results with `details` are always rebuilt: a number JSON cannot keep (1e400) must become what
 * JSON.stringify makes of it.
 */
function verbatim(record: Record<string, unknown>, text: string): boolean {
	for (const key in record) if (key !== "content" && key !== "terminate") return false;
	if ((record.terminate !== undefined && record.terminate !== true) || !Array.isArray(record.content)) return false;
	for (const block of record.content as unknown[]) {
		if (block === null || typeof block !== "object") return false;
		const b = block as Record<string, unknown>;
		let keys = 0;
		for (const _ in b) keys++;
		const text = b.type === "text" && typeof b.text === "string" && keys === 2;
		const image = b.type === "image" && typeof b.data === "string" && typeof b.mimeType === "string" && keys === 3;
		if (!text && !image) return false;
	}
	return !text.includes("\n") && !text.includes("\r");
}

/**
 * The result most tools give, one text block, written exactly in JSON's own grammar (so also without a raw
 * line break): `verbatim` holds for it without parsing it. The alternatives start with different characters,
 * so the match is linear in the text.
 */
const ONE_TEXT_BLOCK =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON forbids raw U+0000–U+001F in a string; this names them.
	/^\{"content":\[\{"type":"text","text":"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"\}\]\}$/;

/**
 * A Done payload: `parseResult`, and the text when it can stand for the value as it is (see `verbatim`). For
 * one canonical text block the value is left unparsed: the fast path sends the text itself (`resultOf`).
 */
export function readDone(text: string): Done {
	if (ONE_TEXT_BLOCK.test(text)) return { kind: "done", result: undefined, text };
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { kind: "done", result: { content: [{ type: "text", text }] }, text: undefined };
	}
	if (value !== null && typeof value === "object" && !Array.isArray(value)) {
		const record = value as Record<string, unknown>;
		if (verbatim(record, text)) return { kind: "done", result: record as unknown as ToolResultJson, text };
	}
	return { kind: "done", result: parseResult(text, value), text: undefined };
}

/** rpi's lenient AgentToolResult reader (native-abi.md §2.3); text that is not JSON is one text block. */
export function parseResult(text: string, parsed?: unknown): ToolResultJson {
	let value: unknown = parsed;
	if (parsed === undefined)
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
export function paramsWithHost(params: unknown, host: ToolCallOptions["host"]): string {
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
 * One poll: the result when Done (with its text when that can stand for it), an error when Err, undefined
 * when Pending (its progress, if any, delivered as a partial update).
 */
function pollOnce(call: Call, partial: Address): Done | undefined {
	const { fns } = call.tool;
	call.woken = false;
	const tag = fns.poll(call.handle, partial, call.key);
	return stepOutcome(
		call,
		tag,
		tag === StepTag.Done || tag === StepTag.Err || tag === StepTag.Pending ? fns.take() : "",
	);
}

export type Done = Extract<Started["first"], { kind: "done" }>;

/** A Done's value (parsed from its text when `readDone` left it so). */
export function resultOf(done: Done): ToolResultJson {
	return done.result ?? (JSON.parse(done.text!) as ToolResultJson);
}

/** A poll's tag and payload text as `pollOnce` answers them. */
function stepOutcome(call: Call, tag: number, text: string): Done | undefined {
	const { name } = call.tool;
	if (tag === StepTag.Done) return readDone(text);
	if (tag === StepTag.Err) throw new Error(text || `plugin tool '${name}' failed`);
	if (tag !== StepTag.Pending) throw new Error(`plugin tool '${name}' returned unknown step tag ${tag}`);
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
export function startTool(
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
	if (tool.fns.first) return firstStep(call, callId, paramsJson, partial, wake);
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
		return { call, first: pollOnce(call, partial) ?? { kind: "pending" }, polls: 1 };
	} catch (error) {
		return { call, first: { kind: "failed", error }, polls: 1 };
	}
}

/** `startTool` through the helper's one crossing (tool-ffi.ts `first`): the same outcomes, in the same order. */
function firstStep(call: Call, callId: string, paramsJson: string, partial: Address, wake: Address): Started {
	const { tool, key } = call;
	let step: FirstStep;
	try {
		step = tool.fns.first!(callId, paramsJson, key, partial, wake);
	} catch (error) {
		calls.delete(key);
		return { call: undefined, first: { kind: "failed", error }, polls: 0 };
	}
	call.handle = step.handle;
	if (step.state === StepState.Refused) {
		calls.delete(key);
		const error = new Error(`plugin execute returned null handle for '${tool.name}'`);
		return { call: undefined, first: { kind: "failed", error }, polls: 0 };
	}
	// Done in C: the handle is destroyed and the waker cleared already; nothing is left to finish.
	if (step.state === StepState.Done) calls.delete(key);
	const open = step.state === StepState.Done ? undefined : call;
	try {
		return { call: open, first: stepOutcome(call, step.tag, step.text) ?? { kind: "pending" }, polls: 1 };
	} catch (error) {
		return { call: open, first: { kind: "failed", error }, polls: 1 };
	}
}

/** The poll `drive` would make at once after the first (no waker, or it woke meanwhile), made here. */
export function pollAgain(started: Started): void {
	const { call } = started;
	if (!call || started.first.kind !== "pending" || (call.tool.fns.setWaker && !call.woken)) return;
	started.polls++;
	try {
		started.first = pollOnce(call, callbacks().partial) ?? started.first;
	} catch (error) {
		started.first = { kind: "failed", error };
	}
}

/**
 * The answer of a started call: at once when the first poll ended it (destroyed before this returns), else
 * a promise while `drive` polls on, with `options`' updates and abort.
 */
export function settleTool(started: Started, options: ToolCallOptions): ToolResultJson | Promise<ToolResultJson> {
	const { call, first } = started;
	if (first.kind === "pending" && call) {
		call.onUpdate = options.onUpdate;
		return drive(call, options, started.polls);
	}
	if (call) finish(call);
	if (first.kind === "failed") throw first.error;
	if (first.kind === "done") return resultOf(first);
	throw new Error(`plugin tool '${started.call?.tool.name}' has no handle`);
}

/** A started call nobody polls again (answered by the fast path, or not taken by the kit): destroyed, after a cancel if it was pending. */
export function closeTool(started: Started): void {
	if (!started.call) return;
	if (started.first.kind === "pending") started.call.tool.fns.cancel(started.call.handle);
	finish(started.call);
}

/** A call the fast path (fast-tools.ts) started and hands to the kit, taken by the kit's `execute`. */
let handedOver: { tool: NativeTool; callId: string; started: Started; partials: ToolResultJson[] } | undefined;

/** Offers `started` to the `runTool` the kit is about to make for this tool and call id; see `takeBack`. */
export function handOver(tool: NativeTool, callId: string, started: Started, partials: ToolResultJson[]): void {
	handedOver = { tool, callId, started, partials };
}

/** What the kit did not take (it answered the invocation without calling the tool), for `closeTool`. */
export function takeBack(): Started | undefined {
	const left = handedOver?.started;
	handedOver = undefined;
	return left;
}

/**
 * Runs a tool call for the kit. The first poll happens before this returns: a tool that is Done (or fails)
 * at once is answered without a promise or a timer of its own; a pending one continues in `drive`.
 */
export function runTool(tool: NativeTool, options: ToolCallOptions): ToolResultJson | Promise<ToolResultJson> {
	const offered = handedOver;
	if (offered !== undefined && offered.tool === tool && offered.callId === options.callId) {
		handedOver = undefined;
		for (const partial of offered.partials) options.onUpdate(partial);
		return settleTool(offered.started, options);
	}
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
			if (done) return resultOf(done);
		}
	} finally {
		finish(call);
	}
}
