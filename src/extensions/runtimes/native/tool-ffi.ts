/**
 * A tool's functions (execute → poll → cancel → destroy, set_waker) decoded with abi.ts's types, and the two
 * host callbacks a tool calls. Every plugin string is copied out and reclaimed with the tool's own deallocator.
 */
import {
	callback,
	FreeStringFn,
	HOST_FREE,
	hostString,
	koffi,
	type RawString,
	readText,
	ref,
	StepTag,
	ToolExecuteFn,
	ToolHandleFn,
	ToolPartialCb,
	ToolPollFn,
	ToolSetWakerFn,
	ToolWakeCb,
} from "./abi.js";

export interface ToolPointers {
	execute: unknown;
	poll: unknown;
	cancel: unknown;
	destroy: unknown;
	free: unknown;
	/** `register_tool_with_wake` only. */
	setWaker?: unknown;
}

export interface ToolFns {
	/** Starts a call: `params` is copied into memory the plugin frees with the host's `free_string`. null = refused. */
	execute(callId: string, params: string): unknown;
	/** One poll: its tag, and its payload as text (reclaimed; "" when it had none or the tag is unknown). */
	poll(handle: unknown, partialCb: unknown, key: number): { tag: number; text: string };
	/** A plugin string (a partial update) as text, reclaimed. */
	take(s: RawString): string;
	cancel(handle: unknown): void;
	destroy(handle: unknown): void;
	setWaker?: (handle: unknown, callback: unknown, key: number) => void;
}

type Step = { tag: number; payload: RawString };

export function bindTool(pointers: ToolPointers): ToolFns {
	const execute = koffi.decode(pointers.execute, ToolExecuteFn) as (id: unknown, p: unknown, f: unknown) => unknown;
	const poll = koffi.decode(pointers.poll, ToolPollFn) as (handle: unknown, cb: unknown, key: number) => Step;
	const free = koffi.decode(pointers.free, FreeStringFn) as (s: RawString) => void;
	const setWaker = pointers.setWaker === undefined ? undefined : koffi.decode(pointers.setWaker, ToolSetWakerFn);
	const take = (s: RawString): string => {
		if (s.ptr === null) return "";
		const text = readText(s);
		free(s);
		return text;
	};
	return {
		execute: (callId, params) => execute(ref(callId), hostString(params), HOST_FREE),
		poll: (handle, partialCb, key) => {
			const { tag, payload } = poll(handle, partialCb, key);
			// An unknown tag's payload is not read or freed: nothing says it is a string.
			const known = tag === StepTag.Pending || tag === StepTag.Done || tag === StepTag.Err;
			return { tag, text: known ? take(payload) : "" };
		},
		take,
		cancel: koffi.decode(pointers.cancel, ToolHandleFn) as ToolFns["cancel"],
		destroy: koffi.decode(pointers.destroy, ToolHandleFn) as ToolFns["destroy"],
		...(setWaker ? { setWaker: setWaker as ToolFns["setWaker"] } : {}),
	};
}

/** The partial-update and wake callbacks every tool is given, registered once for the life of the process. */
export function toolCallbacks(
	partial: (s: RawString, key: number) => void,
	wake: (key: number) => void,
): { partial: unknown; wake: unknown } {
	return { partial: callback(partial, ToolPartialCb), wake: callback(wake, ToolWakeCb) };
}
