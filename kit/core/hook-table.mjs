/**
 * Every hook an extension may register (REFERENCES.md §6: the 33 OMP names, rpi's trust_decision, pier's
 * permission_denied, and pi 1.6's events whose payload is JSON), with how one extension's several handlers give
 * the host one answer. This is the single
 * table: the host's registration check and event producers, the guest core of every runtime (the Node kit, the
 * QuickJS prelude) and docs/protocol-v1.md all read it. Plain ES2020 with no imports, so QuickJS can load it.
 *
 * Per hook:
 * - `producer`: "pi" (a pi session event the bridge subscribes to) or "pier" (produced by pier itself);
 * - `feedForward`: event fields a handler's answer replaces for the next handler (rpi's QuickJS rules);
 * - `inPlace`: the event field pi's handlers mutate in place; a mutation counts as a returned change;
 * - `reduce`: how a further answer joins the answers so far ("merge" by default: objects merge, else the latest);
 * - `stops`: the answer that ends the chain (docs/protocol-v1.md §7.3); `cancel: true` always does;
 * - `payload`: the fields of the event's `data` its producer sends (pi's own events also carry `type`);
 * - `answer`: the JSON Schema a non-null answer must match, checked by the host; none: the answer is ignored.
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
 * @property {readonly string[]} payload
 * @property {object} [answer] a JSON Schema (plain, so the QuickJS guest can read the table too)
 */

// JSON Schema pieces for the answers, prefixed: a guest may inline this file beside names of its own. Objects
// are closed: an unknown field makes an answer invalid (REFERENCES #8).
const jsonString = { type: "string" };
const jsonBoolean = { type: "boolean" };
const jsonAny = {};
const jsonList = (items) => ({ type: "array", items });
const jsonClosed = (properties, required = []) => ({
	type: "object",
	properties,
	required,
	additionalProperties: false,
});
const JSON_CUSTOM_MESSAGE = jsonClosed(
	{
		customType: jsonString,
		content: { anyOf: [jsonString, jsonList(jsonAny)] },
		display: jsonBoolean,
		details: jsonAny,
	},
	["customType", "content", "display"],
);
const jsonCancel = (more = {}) => jsonClosed({ cancel: jsonBoolean, ...more });
const jsonConst = (value) => ({ const: value });
/** pi 1.6's SessionBoundaryDraft: an entry a boundary hook (agent_before_settle) appends to the session. */
const JSON_BOUNDARY_DRAFT = {
	anyOf: [
		jsonClosed({ type: jsonConst("custom"), customType: jsonString, data: jsonAny }, ["type", "customType"]),
		jsonClosed(
			{
				type: jsonConst("custom_message"),
				customType: jsonString,
				content: { anyOf: [jsonString, jsonList(jsonAny)] },
				display: jsonBoolean,
				details: jsonAny,
			},
			["type", "customType", "content", "display"],
		),
		jsonClosed({ type: jsonConst("context_edit"), targetId: jsonString, replacement: jsonAny }, [
			"type",
			"targetId",
			"replacement",
		]),
		jsonClosed(
			{
				type: jsonConst("compaction"),
				summary: jsonString,
				firstKeptEntryId: { anyOf: [jsonString, { type: "null" }] },
				details: jsonAny,
				usage: jsonAny,
			},
			["type", "summary", "firstKeptEntryId"],
		),
	],
};

/** @type {Readonly<Record<string, HookSpec>>} */
export const HOOKS = Object.freeze({
	project_trust: {
		producer: "pi",
		payload: ["cwd", "hasUI", "counts"],
		answer: jsonClosed({ trusted: jsonBoolean }, ["trusted"]),
	},
	resources_discover: {
		producer: "pi",
		payload: ["cwd", "reason"],
		answer: jsonClosed({
			skillPaths: jsonList(jsonString),
			promptPaths: jsonList(jsonString),
			themePaths: jsonList(jsonString),
		}),
	},
	// pi 1.6: the servers in-process extensions registered, without what may carry a credential (bridge/event-data.ts).
	mcp_servers_change: { producer: "pi", payload: ["servers"] },
	session_start: { producer: "pi", payload: ["reason", "previousSessionFile"] },
	session_info_changed: { producer: "pi", payload: ["name"] },
	session_before_switch: { producer: "pi", payload: ["reason", "targetSessionFile"], answer: jsonCancel() },
	session_before_fork: {
		producer: "pi",
		payload: ["entryId", "position"],
		answer: jsonCancel({ skipConversationRestore: jsonBoolean }),
	},
	session_before_compact: {
		producer: "pi",
		payload: ["preparation", "branchEntries", "customInstructions", "reason", "willRetry", "signal"],
		answer: jsonCancel({ compaction: jsonAny }),
	},
	session_compact: { producer: "pi", payload: ["compactionEntry", "fromExtension", "reason", "willRetry"] },
	session_compact_failed: {
		producer: "pi",
		payload: ["reason", "errorMessage", "aborted", "willRetry", "fromExtension"],
	},
	session_shutdown: { producer: "pi", payload: ["reason", "targetSessionFile"] },
	session_before_tree: {
		producer: "pi",
		payload: ["preparation", "signal"],
		answer: jsonCancel({
			summary: jsonClosed({ summary: jsonString, details: jsonAny, usage: jsonAny }, ["summary"]),
			customInstructions: jsonString,
			replaceInstructions: jsonBoolean,
			label: jsonString,
		}),
	},
	session_tree: { producer: "pi", payload: ["newLeafId", "oldLeafId", "summaryEntry", "fromExtension"] },
	context: {
		producer: "pi",
		feedForward: ["messages"],
		reduce: "latest",
		payload: ["messages"],
		answer: jsonClosed({ messages: jsonList(jsonAny) }),
	},
	// pi 1.6: after every `context` handler, the whole transcript with its system messages; the answer is sent as is.
	context_with_system: {
		producer: "pi",
		feedForward: ["messages"],
		reduce: "latest",
		payload: ["messages"],
		answer: jsonClosed({ messages: jsonList(jsonAny) }),
	},
	// pi 1.6: before a prompt-cache refresh; the last `action` given wins, as in pi.
	cache_warming_decision: {
		producer: "pi",
		payload: ["warmCost", "missCost", "continuationProbability", "action"],
		answer: jsonClosed({ action: { enum: ["warm", "stop"] } }),
	},
	before_provider_request: {
		producer: "pi",
		inPlace: "payload",
		replacesEvent: true,
		reduce: "latest",
		payload: ["payload"],
		// Any JSON: the replacement payload itself.
		answer: jsonAny,
	},
	before_provider_headers: {
		producer: "pi",
		inPlace: "headers",
		payload: ["provider", "modelId", "headers"],
		answer: jsonClosed(
			{ headers: { type: "object", additionalProperties: { anyOf: [jsonString, { type: "null" }] } } },
			["headers"],
		),
	},
	after_provider_response: { producer: "pi", payload: ["status", "headers"] },
	// pi 1.6: each parsed provider stream event before pi normalises it (one per token; pi waits for the answer).
	provider_stream_event: { producer: "pi", payload: ["provider", "api", "model", "data"] },
	before_agent_start: {
		producer: "pi",
		feedForward: ["systemPrompt"],
		reduce: "before_agent_start",
		payload: ["prompt", "images", "systemPrompt", "systemPromptOptions"],
		answer: jsonClosed({
			message: JSON_CUSTOM_MESSAGE,
			messages: jsonList(JSON_CUSTOM_MESSAGE),
			systemPrompt: jsonString,
		}),
	},
	agent_start: { producer: "pi", payload: [] },
	agent_end: { producer: "pi", payload: ["messages"] },
	// pi 1.6: before the run settles; the answer's `entries` (the whole list) and `continue` replace the event's.
	agent_before_settle: {
		producer: "pi",
		feedForward: ["entries", "continue"],
		payload: ["outcome", "entries", "continue", "context"],
		answer: jsonClosed({ entries: jsonList(JSON_BOUNDARY_DRAFT), continue: jsonBoolean }),
	},
	agent_settled: { producer: "pi", payload: ["aborted"] },
	// pi 1.6: while pi waits on a blocking extension dialog (any extension's, this one's too).
	ui_prompt_start: { producer: "pi", payload: ["reason", "kind", "title"] },
	ui_prompt_end: { producer: "pi", payload: ["reason", "kind", "title"] },
	turn_start: { producer: "pi", payload: ["turnIndex", "timestamp"] },
	turn_end: { producer: "pi", payload: ["turnIndex", "message", "toolResults"] },
	message_start: { producer: "pi", payload: ["message"] },
	message_update: { producer: "pi", payload: ["message", "assistantMessageEvent"] },
	message_end: {
		producer: "pi",
		feedForward: ["message"],
		inPlace: "message",
		payload: ["message"],
		answer: jsonClosed({ message: jsonAny }),
	},
	tool_execution_start: { producer: "pi", payload: ["toolCallId", "toolName", "args"] },
	tool_execution_update: { producer: "pi", payload: ["toolCallId", "toolName", "args", "partialResult"] },
	tool_execution_end: { producer: "pi", payload: ["toolCallId", "toolName", "result", "isError"] },
	model_select: { producer: "pi", payload: ["model", "previousModel", "source"] },
	thinking_level_select: { producer: "pi", payload: ["level", "previousLevel"] },
	tool_call: {
		producer: "pi",
		feedForward: ["input"],
		inPlace: "input",
		stops: (a) => a.block === true,
		payload: ["toolCallId", "toolName", "input"],
		answer: jsonClosed({ block: jsonBoolean, reason: jsonString, input: jsonAny }),
	},
	tool_result: {
		producer: "pi",
		feedForward: ["content", "details", "isError", "usage"],
		payload: ["toolCallId", "toolName", "input", "content", "details", "isError"],
		answer: jsonClosed({ content: jsonList(jsonAny), details: jsonAny, isError: jsonBoolean, usage: jsonAny }),
	},
	user_bash: {
		producer: "pi",
		stops: () => true,
		payload: ["command", "excludeFromContext", "cwd"],
		answer: jsonClosed({
			result: jsonClosed(
				{
					output: jsonString,
					exitCode: { type: "integer" },
					cancelled: jsonBoolean,
					truncated: jsonBoolean,
					fullOutputPath: jsonString,
				},
				["output"],
			),
		}),
	},
	input: {
		producer: "pi",
		reduce: "input",
		stops: (a) => a.action === "handled",
		payload: ["text", "images", "source"],
		answer: {
			anyOf: [
				jsonClosed({ action: { const: "continue" } }, ["action"]),
				jsonClosed({ action: { const: "transform" }, text: jsonString, images: jsonList(jsonAny) }, ["action", "text"]),
				jsonClosed({ action: { const: "handled" } }, ["action"]),
			],
		},
	},
	trust_decision: {
		producer: "pi",
		payload: ["path", "decision", "isNew"],
		answer: jsonClosed({ approve: jsonBoolean }, ["approve"]),
	},
	// pier: tells a sandboxed extension that part of its hook answer was denied for a missing grant.
	permission_denied: { producer: "pier", payload: ["hook", "grant", "message", "toolName", "toolCallId"] },
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
		// rpi: the latest answer's fields (its `message` too) win, and every `message` also joins `messages`.
		const { message, messages = [] } = answer;
		const all = [...(merged?.messages ?? []), ...messages, ...(message ? [message] : [])];
		return { ...merged, ...answer, ...(all.length > 0 ? { messages: all } : {}) };
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
