/**
 * Every hook an extension may register (REFERENCES.md §6: the 33 OMP names, rpi's trust_decision and pier's
 * permission_denied), with how one extension's several handlers give the host one answer. This is the single
 * table: the host's registration check and event producers, the guest core of every runtime (the Node kit, the
 * QuickJS prelude) and docs/protocol-v1.md all read it. Plain ES2020 with no imports, so QuickJS can load it.
 *
 * Per hook:
 * - `producer`: "pi" (a pi session event the bridge subscribes to) or "pier" (produced by pier itself);
 * - `feedForward`: event fields a handler's answer replaces for the next handler (rpi's QuickJS rules);
 * - `inPlace`: the event field pi's handlers mutate in place; a mutation counts as a returned change;
 * - `reduce`: how a further answer joins the answers so far ("merge" by default: objects merge, else the latest);
 * - `stops`: the answer that ends the chain (docs/protocol-v1.md §7.3); `cancel: true` always does.
 */

/** @typedef {"merge" | "latest" | "input" | "before_agent_start"} Reduction */
/**
 * @typedef {object} HookSpec
 * @property {"pi" | "pier"} producer
 * @property {readonly string[]} [feedForward]
 * @property {string} [inPlace]
 * @property {Reduction} [reduce]
 * @property {(answer: any) => boolean} [stops]
 * @property {true} [replacesEvent] the answer as a whole becomes the next handler's `payload` (before_provider_request)
 */

/** @type {Readonly<Record<string, HookSpec>>} */
export const HOOKS = Object.freeze({
	project_trust: { producer: "pi" },
	resources_discover: { producer: "pi" },
	session_start: { producer: "pi" },
	session_info_changed: { producer: "pier" },
	session_before_switch: { producer: "pi" },
	session_before_fork: { producer: "pi" },
	session_before_compact: { producer: "pi" },
	session_compact: { producer: "pi" },
	session_shutdown: { producer: "pi" },
	session_before_tree: { producer: "pi" },
	session_tree: { producer: "pi" },
	context: { producer: "pi", feedForward: ["messages"], reduce: "latest" },
	before_provider_request: { producer: "pi", inPlace: "payload", replacesEvent: true, reduce: "latest" },
	before_provider_headers: { producer: "pier", inPlace: "headers" },
	after_provider_response: { producer: "pi" },
	before_agent_start: { producer: "pi", feedForward: ["systemPrompt"], reduce: "before_agent_start" },
	agent_start: { producer: "pi" },
	agent_end: { producer: "pi" },
	agent_settled: { producer: "pier" },
	turn_start: { producer: "pi" },
	turn_end: { producer: "pi" },
	message_start: { producer: "pi" },
	message_update: { producer: "pi" },
	message_end: { producer: "pi", feedForward: ["message"], inPlace: "message" },
	tool_execution_start: { producer: "pi" },
	tool_execution_update: { producer: "pi" },
	tool_execution_end: { producer: "pi" },
	model_select: { producer: "pi" },
	thinking_level_select: { producer: "pi" },
	tool_call: { producer: "pi", feedForward: ["input"], inPlace: "input", stops: (a) => a.block === true },
	tool_result: { producer: "pi", feedForward: ["content", "details", "isError", "usage"] },
	user_bash: { producer: "pi", stops: () => true },
	input: { producer: "pi", reduce: "input", stops: (a) => a.action === "handled" },
	trust_decision: { producer: "pi" },
	// pier: tells a sandboxed extension that part of its hook answer was denied for a missing grant.
	permission_denied: { producer: "pier" },
});

/** The hook names, in the table's order. */
export const HOOK_NAME_LIST = Object.freeze(Object.keys(HOOKS));

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** pi's handlers receive `{type, ...data}`; data that is not an object arrives as `{type, data}`. */
export function hookEvent(name, data) {
	return isObject(data) ? { type: name, ...data } : { type: name, data };
}

/** What handler `answer` changes in the event the next handler of the same extension sees. */
export function feedForward(name, event, answer) {
	const spec = HOOKS[name];
	if (!spec) return;
	if (spec.replacesEvent) {
		event[spec.inPlace] = answer;
		return;
	}
	if (name === "input" && answer.action !== "transform") return;
	const keys = name === "input" ? ["text", "images"] : name === "before_provider_headers" ? [] : spec.feedForward;
	for (const key of keys ?? []) if (key in answer) event[key] = answer[key];
	if (name === "before_provider_headers" && answer.headers) event.headers = { ...event.headers, ...answer.headers };
}

/** How one more handler answer joins the answers so far. */
export function combine(name, merged, answer) {
	const reduce = HOOKS[name]?.reduce ?? "merge";
	if (reduce === "latest") return answer;
	if (reduce === "input") {
		if (answer.action === "transform") return { ...(merged?.action === "transform" ? merged : {}), ...answer };
		return answer.action === "handled" ? answer : (merged ?? answer);
	}
	if (reduce === "before_agent_start") {
		// Messages accumulate; the host appends `messages` when non-empty.
		const { message, messages = [], ...rest } = answer;
		const all = [...(merged?.messages ?? []), ...messages, ...(message ? [message] : [])];
		return { ...merged, ...rest, ...(all.length > 0 ? { messages: all } : {}) };
	}
	return isObject(merged) && isObject(answer) ? { ...merged, ...answer } : answer;
}

/** Whether `answer` ends the chain: no later handler of the extension runs. */
export function stopsChain(name, answer) {
	return answer.cancel === true || HOOKS[name]?.stops?.(answer) === true;
}

/** The answer once every handler ran: an in-place mutation of the event's field counts as a returned change. */
export function foldInPlace(name, merged, before, event) {
	const field = HOOKS[name]?.inPlace;
	if (!field || JSON.stringify(event[field]) === before) return merged;
	return HOOKS[name].replacesEvent ? event[field] : { ...merged, [field]: event[field] };
}

/** The in-place field's value before the handlers ran, to compare after them (undefined: none to watch). */
export function inPlaceBefore(name, event) {
	const field = HOOKS[name]?.inPlace;
	return field ? JSON.stringify(event[field]) : undefined;
}
