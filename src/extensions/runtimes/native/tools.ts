/**
 * One native tool call: execute → poll … → (cancel) → destroy, on the plugin host's main thread.
 *
 * Pending costs no CPU: a tool registered with a waker sleeps until its wake callback fires (from any
 * thread: koffi queues a foreign thread's call to the event loop); one without a waker is polled again after
 * a short backoff (at once, then 1, 2, 4 … up to 50 ms). The agent's abort becomes the plugin's `cancel`;
 * `destroy` runs exactly once whatever happened, after the waker (if any) is unregistered.
 */
import {
	callback,
	HOST_FREE,
	hostString,
	koffi,
	type RawString,
	ref,
	StepTag,
	ToolPartialCb,
	ToolWakeCb,
} from "./abi.js";
import { takeString } from "./loader.js";
import type { NativeTool } from "./registry.js";

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
	host: { cwd?: string; sessionId?: string };
	/** Asked for only once a step is pending: an immediate tool never pays for an AbortSignal. */
	signal: () => AbortSignal | undefined;
	onUpdate: (partial: ToolResultJson) => void;
}

/**
 * In-flight calls by key: a small integer passed as the poll's user_data and the waker's data (an opaque
 * pointer value the plugin hands back, never dereferenced), so a call allocates no native memory for it.
 */
let nextKey = 1;
const calls = new Map<number, { tool: NativeTool; onUpdate: (p: ToolResultJson) => void; wake: () => void }>();
let partialCb: unknown;
let wakeCb: unknown;

function callbacks(): { partial: unknown; wake: unknown } {
	partialCb ??= callback((partial: RawString, userData: unknown) => {
		const call = calls.get(Number(koffi.address(userData)));
		// A partial is plugin memory: reclaimed with the tool's own deallocator, never the host's.
		const text = takeString(partial, call?.tool.free);
		if (call && text !== "") call.onUpdate(parseResult(text));
	}, ToolPartialCb);
	wakeCb ??= callback((data: unknown) => calls.get(Number(koffi.address(data)))?.wake(), ToolWakeCb);
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

/** The params the plugin sees: the model's, with pier's host context under `__rpi` (overriding the model's). */
export function paramsWithHost(params: unknown, host: ToolCallOptions["host"]): string {
	const base = params !== null && typeof params === "object" && !Array.isArray(params) ? params : {};
	const context = {
		...(host.cwd !== undefined ? { cwd: host.cwd } : {}),
		...(host.sessionId !== undefined ? { sessionId: host.sessionId } : {}),
	};
	return JSON.stringify({ ...base, [HOST_CONTEXT_KEY]: context });
}

export async function runTool(tool: NativeTool, options: ToolCallOptions): Promise<ToolResultJson> {
	const { partial, wake } = callbacks();
	const key = nextKey++;
	if (nextKey > 0x7fff_ffff) nextKey = 1;
	const address = key;
	let woken = false;
	let wakeWaiter: (() => void) | undefined;
	calls.set(address, {
		tool,
		onUpdate: options.onUpdate,
		wake: () => {
			woken = true;
			wakeWaiter?.();
		},
	});
	const handle = tool.execute(ref(options.callId), hostString(paramsWithHost(options.params, options.host)), HOST_FREE);
	if (handle === null || koffi.address(handle) === 0n) {
		calls.delete(address);
		throw new Error(`plugin execute returned null handle for '${tool.name}'`);
	}
	if (tool.setWaker) tool.setWaker(handle, wake, key);
	let signal: AbortSignal | undefined;
	let abort: Promise<"aborted"> | undefined;
	try {
		for (let attempt = 0; ; attempt++) {
			if (signal?.aborted) {
				tool.cancel(handle);
				throw new Error("plugin tool cancelled");
			}
			woken = false;
			const step = tool.poll(handle, partial, key);
			if (step.tag === StepTag.Done) return parseResult(takeString(step.payload, tool.free));
			if (step.tag === StepTag.Err)
				throw new Error(takeString(step.payload, tool.free) || `plugin tool '${tool.name}' failed`);
			if (step.tag !== StepTag.Pending)
				throw new Error(`plugin tool '${tool.name}' returned unknown step tag ${step.tag}`);
			const progress = takeString(step.payload, tool.free);
			if (progress !== "") options.onUpdate(parseResult(progress));
			if (!abort) {
				signal = options.signal();
				abort = new Promise<"aborted">((resolve) => {
					if (signal?.aborted) resolve("aborted");
					signal?.addEventListener("abort", () => resolve("aborted"), { once: true });
				});
			}
			if (tool.setWaker) {
				if (woken) continue;
				await Promise.race([new Promise<void>((resolve) => (wakeWaiter = resolve)), abort]);
				wakeWaiter = undefined;
			} else {
				// Again at once (a partial-then-result tool finishes in one turn, its frames in one write),
				// then after 1, 2, 4 … ≤ 50 ms.
				if (attempt === 0) continue;
				const wait = new Promise((resolve) => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, 2 ** (attempt - 1))));
				await Promise.race([wait, abort]);
			}
		}
	} finally {
		if (tool.setWaker) tool.setWaker(handle, null, null);
		tool.destroy(handle);
		calls.delete(address);
	}
}
