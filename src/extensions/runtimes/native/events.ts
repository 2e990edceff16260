/**
 * pier hook → the plugin's EventTag handlers: builds the `StablePluginEvent` with the payload arm the tag
 * uses (event-tags.ts), fans it out to every handler of that tag in registration order, and turns their
 * codes into the hook's answer. CONTINUE (0) says nothing; ERROR (1) is logged and the fan-out goes on;
 * ABORT (2) vetoes where the hook has a veto (tool_call blocks, session_before_* cancels, input is handled),
 * else it is logged; CLAIMED (3) counts only for input. The event's strings are host memory (Buffers kept
 * alive for the fan-out); handlers must not free them.
 */
import { ref } from "./abi.js";
import { ABORT_RESULT, CLAIM_RESULT, EVENT_TAGS, type TagInfo } from "./event-tags.js";
import type { NativeEventHandler } from "./registry.js";

type Ref = ReturnType<typeof ref>;
const NONE: Ref = { ptr: null, len: 0 };

export interface StableEvent {
	tag: number;
	a: Ref;
	b: Ref;
	c: Ref;
	isError: number;
}

const json = (value: unknown) => ref(JSON.stringify(value ?? null));
const text = (value: unknown) => ref(typeof value === "string" ? value : "");

/** The event for `info`'s tag from pier's hook data (the hook's event object without `type`). */
export function stableEvent(info: TagInfo, hook: string, data: Record<string, unknown>): StableEvent {
	const event: StableEvent = { tag: info.tag, a: NONE, b: NONE, c: NONE, isError: 0 };
	switch (info.arm) {
		case "message":
			// MessageUpdate carries the assistant message with its `assistantMessageEvent` (rpi-run-stats reads it).
			event.a = json(hook === "message_update" ? data : data.message);
			break;
		case "tool_call":
			event.a = text(data.toolCallId);
			event.b = text(data.toolName);
			event.c = json(data.input ?? data.args ?? {});
			break;
		case "tool_result":
			event.a = text(data.toolCallId);
			event.b = text(data.toolName);
			event.c = json(hook === "tool_result" ? { content: data.content ?? [], details: data.details } : data.result);
			event.isError = data.isError === true ? 1 : 0;
			break;
		case "data":
			event.a = json(data);
			break;
		case "empty":
			break;
	}
	return event;
}

/** The tags a pier hook feeds (BeforeTuiStart rides on session_start only in tui mode). */
export function tagsOf(hook: string, mode: string): TagInfo[] {
	return EVENT_TAGS.filter((t) => t.hook === hook && (t.name !== "BeforeTuiStart" || mode === "tui")).sort(
		// BeforeTuiStart (33) comes before SessionStart (2): it is the earlier moment.
		(x, y) => (x.name === "BeforeTuiStart" ? -1 : y.name === "BeforeTuiStart" ? 1 : x.tag - y.tag),
	);
}

/** The pier hooks this plugin's handlers need. */
export function hooksOf(handlers: readonly NativeEventHandler[]): string[] {
	const hooks = new Set<string>();
	for (const handler of handlers) {
		const hook = EVENT_TAGS[handler.tag]?.hook;
		if (hook) hooks.add(hook);
	}
	return [...hooks];
}

export interface DispatchOptions {
	plugin: string;
	mode: string;
	log: (line: string) => void;
}

/** Runs every handler of the hook's tags; the hook's answer (null = no opinion). */
export function dispatchHook(
	hook: string,
	data: Record<string, unknown>,
	handlers: readonly NativeEventHandler[],
	options: DispatchOptions,
): unknown {
	let answer: unknown = null;
	for (const info of tagsOf(hook, options.mode)) {
		const mine = handlers.filter((h) => h.tag === info.tag);
		if (mine.length === 0) continue;
		const event = stableEvent(info, hook, data);
		for (const handler of mine) {
			const code = handler.call(event, handler.userData);
			if (code === 0) continue;
			if (code === 2 && ABORT_RESULT[hook]) answer ??= ABORT_RESULT[hook](options.plugin);
			else if (code === 3 && CLAIM_RESULT[hook]) answer ??= CLAIM_RESULT[hook];
			else if (code === 1) options.log(`${info.name} handler returned an error (rc=1); the fan-out continues`);
			else if (code === 2) options.log(`${info.name} handler returned abort (rc=2); ${hook} has no veto, ignored`);
			else if (code === 3)
				options.log(`${info.name} handler returned claimed (rc=3); only input can be claimed, ignored`);
			else options.log(`${info.name} handler returned unknown code ${code}; ignored`);
		}
	}
	return answer;
}
