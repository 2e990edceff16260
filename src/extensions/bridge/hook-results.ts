/**
 * What an extension's hook answer means to pi. Each hook has a closed wire
 * shape (rpi's reducers); an answer outside it is an error, never ignored.
 * `null` means "no opinion". pi's own runner chains the answers of several
 * extensions, as it does for in-process handlers.
 *
 * Two rules hold for every answer: a `__proto__` key anywhere in it is refused (JSON.parse makes it an own
 * key, and any later copy by assignment, pi's own message replacement included, would turn it into a
 * prototype change), and what is merged into pi's live objects is defined as own data properties, never
 * assigned. Answers that would make pi use a power the extension lacks (run a command, write or read a
 * file, send a changed provider request) are put to the `gate` first; a denied part is dropped and the call stays as the model made it.
 */
import type { TSchema } from "typebox";
import { HOOKS } from "../../../kit/core/hook-table.mjs";
import { type LazyValidator, lazyValidator } from "../protocol/lazy-validator.js";

/** Each hook's answer schema, from the one hook table the guests and docs/protocol-v1.md read too. */
const CHECKS = new Map<string, LazyValidator<TSchema>>(
	Object.entries(HOOKS).flatMap(([name, spec]) =>
		spec.answer ? [[name, lazyValidator(spec.answer as TSchema)] as const] : [],
	),
);

/** Why `answer` is not a valid non-null answer to `hook` (undefined: it is, or the hook's answers are ignored). */
export function hookAnswerProblem(hook: string, answer: unknown): string | undefined {
	const check = CHECKS.get(hook);
	if (!check || check.Check(answer)) return undefined;
	const first = [...check.Errors(answer)][0];
	return first ? `${first.instancePath || "/"} ${first.message}` : "wrong shape";
}

export class HookResultError extends Error {
	override name = "HookResultError";
}

/** A power a hook answer would make pi use on the extension's behalf. */
export type PowerUse =
	/** a `tool_call` answer replacing the input of `tool` */
	| { kind: "tool_input"; tool: string; toolCallId?: string }
	/** a `message_end` answer adding or changing an assistant tool call of `tool` */
	| { kind: "tool_call"; tool: string; toolCallId?: string }
	/** a `user_bash` answer standing in for the user's command */
	| { kind: "user_bash" }
	/** a `resources_discover` answer pointing pi at paths to read */
	| { kind: "resource_paths" }
	/** a `before_provider_request` answer replacing the payload pi sends with the user's credentials */
	| { kind: "provider_request" };

/** Whether the answering extension may use `use`; a gate that says no reports the denial itself. */
export type Gate = (use: PowerUse) => boolean;

const allowAll: Gate = () => true;

/** The JSON path of the first `__proto__` key in `value`, if any (iterative: answers may nest deeply). */
function protoKeyPath(value: unknown): string | undefined {
	const stack: Array<[unknown, string]> = [[value, ""]];
	while (stack.length > 0) {
		const [node, path] = stack.pop()!;
		if (node === null || typeof node !== "object") continue;
		for (const key of Object.keys(node)) {
			if (key === "__proto__") return `${path}/__proto__`;
			stack.push([(node as Record<string, unknown>)[key], `${path}/${key}`]);
		}
	}
	return undefined;
}

/** Structural equality of JSON values. */
export function sameJson(a: unknown, b: unknown): boolean {
	if (a === b) return true;
	if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
	if (Array.isArray(a) !== Array.isArray(b)) return false;
	const ka = Object.keys(a);
	const kb = Object.keys(b);
	if (ka.length !== kb.length) return false;
	return ka.every(
		(k) => Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
	);
}

/** Replaces every own property of `target` with those of `source`, as data: no setter, no prototype change. */
function replaceOwn(target: Record<string, unknown>, source: Record<string, unknown>): void {
	for (const key of Object.keys(target)) delete target[key];
	for (const key of Object.keys(source)) {
		Object.defineProperty(target, key, { value: source[key], writable: true, enumerable: true, configurable: true });
	}
}

type ToolCallBlock = { type: "toolCall"; id?: unknown; name?: unknown };
const toolCallsOf = (message: unknown): ToolCallBlock[] => {
	const content = (message as { content?: unknown } | null)?.content;
	return Array.isArray(content)
		? content.filter((b): b is ToolCallBlock => !!b && typeof b === "object" && b.type === "toolCall")
		: [];
};

/**
 * Turns one extension's answer to `hook` into pi's handler result. `event` is
 * pi's live event: where pi expects in-place edits (tool_call input) they are
 * applied to it here.
 */
export function toPiHookResult(
	hook: string,
	answer: unknown,
	event: Record<string, unknown>,
	gate: Gate = allowAll,
): unknown {
	if (answer === null || answer === undefined) return undefined;
	const proto = protoKeyPath(answer);
	if (proto) throw new HookResultError(`invalid ${hook} result: a "__proto__" key (at ${proto}) is not allowed`);
	if (hook === "before_provider_request") {
		// The replacement payload itself. Any part of it may carry a URL the provider fetches (remote MCP
		// servers, file and web tools), sent under the user's key: a changed payload is a network power.
		if (sameJson(answer, event.payload) || !gate({ kind: "provider_request" })) return undefined;
		return answer;
	}
	if (!CHECKS.has(hook)) return undefined; // an advisory hook: answers carry no meaning
	const problem = hookAnswerProblem(hook, answer);
	if (problem) throw new HookResultError(`invalid ${hook} result ${JSON.stringify(answer).slice(0, 200)}: ${problem}`);
	const a = answer as Record<string, unknown>;
	switch (hook) {
		case "tool_call": {
			if (a.input !== undefined) {
				if (!a.input || typeof a.input !== "object" || Array.isArray(a.input)) {
					throw new HookResultError("invalid tool_call result: input must be an object");
				}
				const input = event.input as Record<string, unknown>;
				const use: PowerUse = {
					kind: "tool_input",
					tool: String(event.toolName),
					...(typeof event.toolCallId === "string" ? { toolCallId: event.toolCallId } : {}),
				};
				// An answer handing back the input unchanged replaces nothing and needs no grant.
				if (!sameJson(a.input, input) && gate(use)) replaceOwn(input, a.input as Record<string, unknown>);
			}
			return a.block ? { block: true, ...(a.reason ? { reason: a.reason } : {}) } : undefined;
		}
		case "before_agent_start": {
			const messages = a.messages as unknown[] | undefined;
			const message = a.message ?? messages?.[0];
			return {
				...(message ? { message } : {}),
				...(a.systemPrompt !== undefined ? { systemPrompt: a.systemPrompt } : {}),
			};
		}
		// `usage` stays, as rpi's reducer keeps it: pi reads only content, details and isError.
		case "tool_result":
			return a;
		case "message_end": {
			if (a.message === undefined) return a;
			// pi runs the tool calls of the assistant message as it stands after message_end: a call the
			// model did not make is the extension's own, and needs the grant its tool needs.
			const made = toolCallsOf(event.message);
			for (const call of toolCallsOf(a.message)) {
				if (made.some((m) => m.id === call.id && sameJson(m, call))) continue;
				const use: PowerUse = {
					kind: "tool_call",
					tool: String(call.name),
					...(typeof call.id === "string" ? { toolCallId: call.id } : {}),
				};
				if (!gate(use)) return undefined;
			}
			return a;
		}
		case "user_bash": {
			// pi 1.6 takes exactly one whole result (or undefined: run it locally), and fails the command otherwise.
			if (a.result === undefined || !gate({ kind: "user_bash" })) return undefined;
			const result = a.result as { output: string; exitCode?: number; cancelled?: boolean; truncated?: boolean };
			return {
				result: {
					...result,
					exitCode: result.exitCode,
					cancelled: result.cancelled ?? false,
					truncated: result.truncated ?? false,
				},
			};
		}
		case "resources_discover": {
			const paths = [a.skillPaths, a.promptPaths, a.themePaths].some((p) => Array.isArray(p) && p.length > 0);
			if (paths && !gate({ kind: "resource_paths" })) return undefined;
			return a;
		}
		default:
			return a;
	}
}
