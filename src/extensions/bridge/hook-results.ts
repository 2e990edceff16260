/**
 * What an extension's hook answer means to pi. Each hook has a closed wire
 * shape (rpi's reducers); an answer outside it is an error, never ignored.
 * `null` means "no opinion". pi's own runner chains the answers of several
 * extensions, as it does for in-process handlers.
 */
import { type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";

const closed = (properties: Parameters<typeof Type.Object>[0]) =>
	Type.Object(properties, { additionalProperties: false });
const Opt = Type.Optional;
const Json = Type.Unknown();
const Content = Type.Array(Json);
const CustomMessage = closed({
	customType: Type.String(),
	content: Type.Union([Type.String(), Content]),
	display: Type.Boolean(),
	details: Opt(Json),
});

const WIRE: Record<string, TSchema> = {
	tool_call: closed({ block: Opt(Type.Boolean()), reason: Opt(Type.String()), input: Opt(Json) }),
	tool_result: closed({ content: Opt(Content), details: Opt(Json), isError: Opt(Type.Boolean()), usage: Opt(Json) }),
	input: Type.Union([
		closed({ action: Type.Literal("continue") }),
		closed({ action: Type.Literal("transform"), text: Type.String(), images: Opt(Content) }),
		closed({ action: Type.Literal("handled") }),
	]),
	context: closed({ messages: Opt(Type.Array(Json)) }),
	before_agent_start: closed({
		message: Opt(CustomMessage),
		messages: Opt(Type.Array(CustomMessage)),
		systemPrompt: Opt(Type.String()),
	}),
	message_end: closed({ message: Opt(Json) }),
	session_before_switch: closed({ cancel: Opt(Type.Boolean()) }),
	session_before_fork: closed({ cancel: Opt(Type.Boolean()), skipConversationRestore: Opt(Type.Boolean()) }),
	session_before_compact: closed({ cancel: Opt(Type.Boolean()), compaction: Opt(Json) }),
	session_before_tree: closed({
		cancel: Opt(Type.Boolean()),
		summary: Opt(closed({ summary: Type.String(), details: Opt(Json), usage: Opt(Json) })),
		customInstructions: Opt(Type.String()),
		replaceInstructions: Opt(Type.Boolean()),
		label: Opt(Type.String()),
	}),
	user_bash: closed({
		result: Opt(
			closed({
				output: Type.String(),
				exitCode: Opt(Type.Integer()),
				cancelled: Opt(Type.Boolean()),
				truncated: Opt(Type.Boolean()),
				fullOutputPath: Opt(Type.String()),
			}),
		),
	}),
	resources_discover: closed({
		skillPaths: Opt(Type.Array(Type.String())),
		promptPaths: Opt(Type.Array(Type.String())),
		themePaths: Opt(Type.Array(Type.String())),
	}),
};
const CHECKS = new Map(Object.entries(WIRE).map(([name, schema]) => [name, Compile(schema)]));

export class HookResultError extends Error {
	override name = "HookResultError";
}

/**
 * Turns one extension's answer to `hook` into pi's handler result. `event` is
 * pi's live event: where pi expects in-place edits (tool_call input) they are
 * applied to it here.
 */
export function toPiHookResult(hook: string, answer: unknown, event: Record<string, unknown>): unknown {
	if (answer === null || answer === undefined) return undefined;
	if (hook === "before_provider_request") return answer; // the replacement payload itself
	const check = CHECKS.get(hook);
	if (!check) return undefined; // an advisory hook: answers carry no meaning
	if (!check.Check(answer)) {
		const first = [...check.Errors(answer)][0];
		throw new HookResultError(
			`invalid ${hook} result ${JSON.stringify(answer).slice(0, 200)}: ${first ? `${first.instancePath || "/"} ${first.message}` : "wrong shape"}`,
		);
	}
	const a = answer as Record<string, unknown>;
	switch (hook) {
		case "tool_call": {
			if (a.input !== undefined) {
				if (!a.input || typeof a.input !== "object" || Array.isArray(a.input)) {
					throw new HookResultError("invalid tool_call result: input must be an object");
				}
				const input = event.input as Record<string, unknown>;
				for (const key of Object.keys(input)) delete input[key];
				Object.assign(input, a.input);
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
		case "tool_result": {
			const { usage: _usage, ...rest } = a;
			return rest;
		}
		default:
			return a;
	}
}
