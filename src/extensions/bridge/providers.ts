/**
 * Protocol `provider` registrations → pi's model registry (`pi.registerProvider`), so `--model <provider>/<model>`
 * and the chamber's model picker offer them like any other provider. Each turn of such a model is one `provider`
 * invocation of the extension; its answer, a whole pi-ai AssistantMessage, becomes pi's assistant message event
 * stream (with any `text_delta`/`thinking_delta` updates streamed before it).
 *
 * Every provider gets an API name of its own (`pier-extension/<extension>/<provider>`): pi-ai keys stream
 * functions by API name, process-wide, so registering the declared style ("openai-completions") would replace
 * pi's real implementation of it for every other model. The declared style stays visible as the registration's.
 */
import {
	type Api,
	type AssistantMessage,
	type AssistantMessageEventStream,
	type Context,
	createAssistantMessageEventStream,
	type Model,
	type SimpleStreamOptions,
	type StopReason,
	type Usage,
} from "@earendil-works/pi-ai";
import type { ExtensionAPI, ProviderModelConfig } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ContextSnapshot, ProviderModel } from "../protocol/frames.js";
import { modelForExtensions } from "./context.js";

/** The model offered by a provider that lists none (besides whichever id `--model` asks for). */
export const DEFAULT_PROVIDER_MODEL = "default";
/** A literal key: the provider counts as configured (pi lists only those), and no key ever reaches anyone. */
const API_KEY = "pier-extension";

export const providerApiName = (extensionId: string, providerId: string) =>
	`pier-extension/${extensionId}/${providerId}`;

/** The models pi's registry gets for one registration: its own list, else `default` plus the one `--model` names. */
export function providerModels(
	providerId: string,
	declared: readonly ProviderModel[] | undefined,
	requested?: { provider: string; id: string },
): ProviderModelConfig[] {
	const wanted: ProviderModel[] = declared?.length ? [...declared] : [{ id: DEFAULT_PROVIDER_MODEL }];
	if (!declared?.length && requested?.provider === providerId && requested.id !== DEFAULT_PROVIDER_MODEL) {
		wanted.push({ id: requested.id });
	}
	return wanted.map((m) => ({
		id: m.id,
		name: m.name ?? `${providerId}/${m.id}`,
		reasoning: m.reasoning ?? false,
		input: m.input ?? ["text"],
		cost: m.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: m.contextWindow ?? 128_000,
		maxTokens: m.maxTokens ?? 4_096,
	}));
}

export interface ProviderBridgeOptions {
	/** `--model provider/id`, so a provider without a model list offers the id asked for. */
	requestedModel?: { provider: string; id: string };
	/** The latest session context, for the invocation (undefined before the session starts). */
	snapshot: () => ContextSnapshot | undefined;
}

export function registerProviders(pi: ExtensionAPI, host: ExtensionHost, options: ProviderBridgeOptions): void {
	for (const [providerId, { descriptor, instance }] of host.registry.providers) {
		pi.registerProvider(providerId, {
			name: descriptor.label ?? providerId,
			api: providerApiName(instance.id, providerId) as Api,
			baseUrl: descriptor.baseUrl ?? `pier-extension://${instance.id}`,
			apiKey: API_KEY,
			models: providerModels(providerId, descriptor.models, options.requestedModel),
			streamSimple: (model, context, streamOptions) =>
				streamProvider(host, providerId, model, context, streamOptions, options.snapshot),
		});
	}
}

const ZERO_USAGE: Usage = {
	input: 0,
	output: 0,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 0,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** One turn: the extension's answer as pi's event stream; any failure is an `error` event naming the extension. */
function streamProvider(
	host: ExtensionHost,
	providerId: string,
	model: Model<Api>,
	context: Context,
	options: SimpleStreamOptions | undefined,
	snapshot: () => ContextSnapshot | undefined,
): AssistantMessageEventStream {
	const stream = createAssistantMessageEventStream();
	const partial: AssistantMessage = {
		role: "assistant",
		content: [],
		api: model.api,
		provider: model.provider,
		model: model.id,
		usage: structuredClone(ZERO_USAGE),
		stopReason: "stop",
		timestamp: Date.now(),
	};
	// The current generation's owner, looked up per turn: a /reload may have replaced (or dropped) it.
	const owner = host.registry.providers.get(providerId)?.instance;
	const who = owner ? `extension ${owner.id} provider "${providerId}"` : `provider "${providerId}"`;
	const fail = (reason: "error" | "aborted", message: string) =>
		stream.push({ type: "error", reason, error: { ...partial, stopReason: reason, errorMessage: message } });
	stream.push({ type: "start", partial: { ...partial } });
	if (!owner) {
		fail("error", `${who} is no longer registered by any extension (was it removed by a reload?)`);
		return stream;
	}
	const live = new LiveBlocks(stream, partial);
	const invocationOptions = {
		...(options?.temperature !== undefined ? { temperature: options.temperature } : {}),
		...(options?.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
		...(options?.reasoning !== undefined ? { reasoning: options.reasoning } : {}),
	};
	const context_ = snapshot();
	owner
		.invoke(
			{
				kind: "provider",
				providerId,
				...(options?.sessionId ? { sessionId: options.sessionId } : {}),
				messages: context.messages as unknown[],
				options: invocationOptions,
				model: modelForExtensions(model),
				...(context.systemPrompt !== undefined ? { systemPrompt: context.systemPrompt } : {}),
				tools: (context.tools ?? []).map((t) => ({
					name: t.name,
					description: t.description,
					parameters: t.parameters,
				})),
			},
			{
				timeoutMs: host.timeouts.invocationMs,
				...(options?.signal ? { signal: options.signal } : {}),
				...(context_ ? { context: context_ } : {}),
				onUpdate: (value) => live.update(value),
			},
		)
		.then(
			(value) => {
				if (live.failure) return fail("error", `${who} streamed an invalid update: ${live.failure}`);
				let message: AssistantMessage;
				try {
					message = toAssistantMessage(value, model);
				} catch (error) {
					return fail("error", `${who} answered with an invalid assistant message: ${(error as Error).message}`);
				}
				live.finish(message);
				if (message.stopReason === "error" || message.stopReason === "aborted") {
					stream.push({ type: "error", reason: message.stopReason, error: message });
				} else {
					stream.push({ type: "done", reason: message.stopReason, message });
				}
			},
			(error: unknown) => {
				const aborted = options?.signal?.aborted === true;
				fail(aborted ? "aborted" : "error", `${who} failed: ${(error as Error).message ?? String(error)}`);
			},
		);
	return stream;
}

/** Text and thinking streamed by `update` frames before the answer, as pi's start/delta/end events. */
class LiveBlocks {
	private open: { type: "text" | "thinking"; index: number; text: string } | undefined;
	private streamed = false;
	failure: string | undefined;

	constructor(
		private readonly stream: AssistantMessageEventStream,
		private readonly partial: AssistantMessage,
	) {}

	update(value: unknown): void {
		if (this.failure) return;
		const event = value as { type?: unknown; delta?: unknown } | null;
		const type = event?.type === "text_delta" ? "text" : event?.type === "thinking_delta" ? "thinking" : undefined;
		if (!type || typeof event?.delta !== "string") {
			this.failure = `expected {"type":"text_delta"|"thinking_delta","delta":string}, got ${JSON.stringify(value)?.slice(0, 200)}`;
			return;
		}
		this.streamed = true;
		if (this.open?.type !== type) {
			this.close();
			const index = this.partial.content.length;
			this.partial.content.push(type === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
			this.open = { type, index, text: "" };
			this.push(`${type}_start`, { contentIndex: index });
		}
		const open = this.open!;
		open.text += event.delta;
		const block = this.partial.content[open.index]!;
		if (block.type === "text") block.text = open.text;
		else if (block.type === "thinking") block.thinking = open.text;
		this.push(`${type}_delta`, { contentIndex: open.index, delta: event.delta });
	}

	/** Ends what was streamed; an answer that streamed nothing is shown block by block as it arrives whole. */
	finish(message: AssistantMessage): void {
		this.close();
		if (this.streamed) return;
		message.content.forEach((block, index) => {
			this.partial.content.push(block);
			if (block.type === "text") {
				this.push("text_start", { contentIndex: index });
				this.push("text_delta", { contentIndex: index, delta: block.text });
				this.push("text_end", { contentIndex: index, content: block.text });
			} else if (block.type === "thinking") {
				this.push("thinking_start", { contentIndex: index });
				this.push("thinking_delta", { contentIndex: index, delta: block.thinking });
				this.push("thinking_end", { contentIndex: index, content: block.thinking });
			} else {
				this.push("toolcall_start", { contentIndex: index });
				this.push("toolcall_end", { contentIndex: index, toolCall: block });
			}
		});
	}

	private close(): void {
		if (!this.open) return;
		this.push(`${this.open.type}_end`, { contentIndex: this.open.index, content: this.open.text });
		this.open = undefined;
	}

	private push(type: string, fields: Record<string, unknown>): void {
		this.stream.push({ type, ...fields, partial: structuredClone(this.partial) } as never);
	}
}

const STOP_REASONS: Record<string, StopReason> = {
	stop: "stop",
	length: "length",
	toolUse: "toolUse",
	tool_use: "toolUse",
	error: "error",
	aborted: "aborted",
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

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
				return { type: "toolCall", id: block.id, name: block.name, arguments: args };
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
