/**
 * A native plugin's runtime-action arguments read into protocol v1 shapes (actions.ts dispatches): each reader
 * takes rpi's spellings (camelCase and snake_case, flat or under `options`) and refuses anything else with a
 * message naming the action and the field.
 */
import type { Delivery, MessageContent, RuntimeAction, RuntimeRequest, UiRequest } from "../../protocol/frames.js";

/** A refusal with the message the plugin reads (code 1). */
export class ActionError extends Error {
	override name = "ActionError";
}

export type Args = Record<string, unknown>;
export const isRecord = (value: unknown): value is Args =>
	typeof value === "object" && value !== null && !Array.isArray(value);
export const OK = { ok: true } as const;
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

export const action = (a: RuntimeAction): RuntimeRequest => ({ kind: "action", action: a });
export const ui = (request: UiRequest): RuntimeRequest => ({ kind: "ui", ui: { request } });

export function text(args: Args, key: string, what: string): string {
	const value = args[key];
	if (typeof value !== "string") throw new ActionError(`${what} requires a string \`${key}\``);
	return value;
}

/** `deliverAs` flat or under `options`, camelCase or snake_case; default steer. */
export function deliveryOf(args: Args, what: string): { delivery: Delivery; triggerTurn?: boolean } {
	const options = isRecord(args.options) ? { ...args, ...args.options } : args;
	const raw = options.deliverAs ?? options.deliver_as ?? "steer";
	const delivery = (
		{
			steer: "steer",
			followUp: "followUp",
			follow_up: "followUp",
			nextTurn: "nextTurn",
			next_turn: "nextTurn",
		} as const
	)[raw as "steer"];
	if (!delivery) {
		throw new ActionError(`${what} \`deliverAs\` must be steer, followUp or nextTurn, got ${JSON.stringify(raw)}`);
	}
	const trigger = options.triggerTurn ?? options.trigger_turn;
	if (trigger !== undefined && typeof trigger !== "boolean")
		throw new ActionError(`${what} \`triggerTurn\` must be a boolean`);
	return { delivery, ...(trigger !== undefined ? { triggerTurn: trigger } : {}) };
}

export function contentOf(value: unknown, what: string): MessageContent {
	if (typeof value === "string" || Array.isArray(value)) return value;
	throw new ActionError(`${what} \`content\` must be a string or an array of content blocks`);
}

/** A pi custom message from an AgentMessage (`role`/`kind` custom, rpi's `data` holder), pi's shape, or text. */
export function customMessage(message: Args, what: string) {
	const data = isRecord(message.data) ? message.data : {};
	const customType = message.customType ?? data.customType ?? (typeof message.text === "string" ? "native" : undefined);
	if (typeof customType !== "string" || customType === "")
		throw new ActionError(`${what} requires a string \`customType\``);
	const content = message.content !== undefined ? contentOf(message.content, what) : message.text;
	if (content === undefined) throw new ActionError(`${what} requires \`content\` (or \`text\`)`);
	const display = message.display ?? data.display ?? true;
	if (typeof display !== "boolean") throw new ActionError(`${what} \`display\` must be a boolean`);
	const details = message.details ?? data.details;
	return { customType, content: content as MessageContent, display, ...(details !== undefined ? { details } : {}) };
}

export function toolNames(args: Args): string[] {
	const tools = args.tools ?? args.toolNames;
	if (!Array.isArray(tools) || !tools.every((t) => typeof t === "string")) {
		throw new ActionError("set_active_tools requires `tools`, an array of tool names");
	}
	return tools;
}

/** `{provider, id}`, `{model: "provider/id"}`, `{model: {provider, id}}` or `"provider/id"`. */
export function modelRef(args: Args, raw: unknown): { provider: string; id: string } {
	const ref = typeof raw === "string" ? raw : isRecord(args.model) ? args.model : (args.model ?? args);
	if (typeof ref === "string") {
		const slash = ref.indexOf("/");
		if (slash > 0 && slash < ref.length - 1) return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) };
	} else if (isRecord(ref)) {
		const id = ref.id ?? ref.modelId;
		if (typeof ref.provider === "string" && typeof id === "string") return { provider: ref.provider, id };
	}
	throw new ActionError('set_model requires `provider` and `id` (or `model`: "provider/id")');
}

export function thinkingLevel(args: Args): string {
	const level = args.level ?? args.thinkingLevel;
	if (typeof level !== "string" || !THINKING_LEVELS.includes(level)) {
		throw new ActionError(`set_thinking_level \`level\` must be one of ${THINKING_LEVELS.join(", ")}`);
	}
	return level;
}

export function optionalText(args: Args, key: string, what: string): string | undefined {
	const value = args[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new ActionError(`${what} \`${key}\` must be a string`);
	return value;
}

export function optionalFlag(args: Args, key: string, what: string): boolean | undefined {
	const value = args[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "boolean") throw new ActionError(`${what} \`${key}\` must be a boolean`);
	return value;
}
