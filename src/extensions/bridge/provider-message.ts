/**
 * A provider's final AssistantMessage, checked field by field: the answer of pier's form, or the `message` of
 * rpi's `done` event. It goes into the session file and back to every provider, so nothing unchecked passes.
 */
import { isRecord } from "../protocol/json-object.js";
import type { Api, AssistantMessage, JsonObject, Model, StopReason, Usage } from "@earendil-works/pi-ai";

export const ZERO_USAGE: Usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export const STOP_REASONS: Record<string, StopReason> = {
	stop: "stop",
	length: "length",
	toolUse: "toolUse",
	tool_use: "toolUse",
	error: "error",
	aborted: "aborted",
};

/**
 * An extension's answer as pi's AssistantMessage, checked field by field (the message goes into the session
 * file and back to every provider). `api`, `provider` and `model` are the model pi asked; a different model
 * name the extension reports is kept as `responseModel`. Missing usage counts are 0, a missing stop reason is
 * `stop` (`toolUse` when the content calls a tool).
 */
export function toAssistantMessage(value: unknown, model: Model<Api>): AssistantMessage {
	if (!isRecord(value)) throw new Error(`expected an object, got ${value === null ? "null" : typeof value}`);
	if (value.role !== undefined && value.role !== "assistant") {
		throw new Error(`role must be "assistant", got ${JSON.stringify(value.role)}`);
	}
	if (!Array.isArray(value.content)) throw new Error("content must be an array of blocks");
	const content = value.content.map((block, i): AssistantMessage["content"][number] => {
		const at = `content[${i}]`;
		if (!isRecord(block)) throw new Error(`${at} must be an object`);
		switch (block.type) {
			case "text":
				if (typeof block.text !== "string") throw new Error(`${at}.text must be a string`);
				return { type: "text", text: block.text };
			case "thinking":
				if (typeof block.thinking !== "string") throw new Error(`${at}.thinking must be a string`);
				return { type: "thinking", thinking: block.thinking };
			case "toolCall": {
				if (typeof block.id !== "string" || block.id === "") throw new Error(`${at}.id must be a non-empty string`);
				if (typeof block.name !== "string" || block.name === "")
					throw new Error(`${at}.name must be a non-empty string`);
				const args = block.arguments ?? {};
				if (!isRecord(args)) throw new Error(`${at}.arguments must be an object`);
				// Parsed from a JSON frame, so it is JSON.
				return { type: "toolCall", id: block.id, name: block.name, arguments: args as JsonObject };
			}
			default:
				throw new Error(`${at}.type must be "text", "thinking" or "toolCall", got ${JSON.stringify(block.type)}`);
		}
	});
	const calls = content.some((b) => b.type === "toolCall");
	let stopReason: StopReason = calls ? "toolUse" : "stop";
	if (value.stopReason !== undefined) {
		const known = typeof value.stopReason === "string" ? STOP_REASONS[value.stopReason] : undefined;
		if (!known) {
			throw new Error(
				`stopReason must be one of stop, length, toolUse, error, aborted, got ${JSON.stringify(value.stopReason)}`,
			);
		}
		stopReason = known;
	}
	const message: AssistantMessage = {
		role: "assistant",
		content,
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: usageOf(value.usage),
		stopReason,
		timestamp: typeof value.timestamp === "number" && Number.isFinite(value.timestamp) ? value.timestamp : Date.now(),
	};
	if (typeof value.model === "string" && value.model !== "" && value.model !== model.id) {
		message.responseModel = value.model;
	}
	if (typeof value.errorMessage === "string") message.errorMessage = value.errorMessage;
	return message;
}

function usageOf(value: unknown): Usage {
	if (value === undefined || value === null) return structuredClone(ZERO_USAGE);
	if (!isRecord(value)) throw new Error("usage must be an object");
	const count = (record: Record<string, unknown>, key: string, where: string): number => {
		const n = record[key] ?? 0;
		if (typeof n !== "number" || !Number.isFinite(n) || n < 0) {
			throw new Error(`${where}${key} must be a non-negative number`);
		}
		return n;
	};
	const cost = value.cost === undefined || value.cost === null ? {} : value.cost;
	if (!isRecord(cost)) throw new Error("usage.cost must be an object");
	const usage: Usage = {
		input: count(value, "input", "usage."),
		output: count(value, "output", "usage."),
		cacheRead: count(value, "cacheRead", "usage."),
		cacheWrite: count(value, "cacheWrite", "usage."),
		totalTokens: 0,
		cost: {
			input: count(cost, "input", "usage.cost."),
			output: count(cost, "output", "usage.cost."),
			cacheRead: count(cost, "cacheRead", "usage.cost."),
			cacheWrite: count(cost, "cacheWrite", "usage.cost."),
			total: count(cost, "total", "usage.cost."),
		},
	};
	usage.totalTokens =
		value.totalTokens === undefined
			? usage.input + usage.output + usage.cacheRead + usage.cacheWrite
			: count(value, "totalTokens", "usage.");
	return usage;
}
