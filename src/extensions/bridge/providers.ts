/**
 * Protocol `provider` registrations → pi's model registry (`pi.registerProvider`), so `--model <provider>/<model>`
 * and the chamber's model picker offer them like any other provider. Each turn of such a model is one `provider`
 * invocation of the extension; its answer, a whole pi-ai AssistantMessage, becomes pi's assistant message event
 * stream (with any `text_delta`/`thinking_delta` updates streamed before it).
 *
 * Every provider gets an API name of its own (`pier-extension/<extension>/<provider>`): pi's model runtime sends a
 * turn to a registration's `streamSimple` only for models of its API, so registering the declared style
 * ("openai-completions") would route the extension's turns to pi's own implementation of it. Each session's model
 * runtime holds its own registrations, so two sessions with the same extension never answer each other's turns.
 *
 * What crosses the wire is the old `Context` shape, which every protocol runtime reads: pi's transcript carries the
 * system prompt and tools in `role:"system"` messages, so the current prompt and tools are replayed from them and
 * the system messages themselves stay on this side.
 */
import {
	type Api,
	type AssistantMessageEventStream,
	createAssistantMessageEventStream,
	getCurrentSystemPrompt,
	getCurrentTools,
	type Model,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { ExtensionAPI, ProviderModelConfig } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ContextSnapshot, ProviderModel } from "../protocol/frames.js";
import { modelForExtensions } from "./event-data.js";
import { ProviderStreamTranslator, StreamEventError } from "./provider-stream.js";

export { toAssistantMessage } from "./provider-message.js";

/** The model offered by a provider that lists none (besides whichever id `--model` asks for). */
export const DEFAULT_PROVIDER_MODEL = "default";
/** A literal key: the provider counts as configured (pi lists only those), and no key ever reaches anyone. */
const API_KEY = "pier-extension";

export const API_PREFIX = "pier-extension/";

export const providerApiName = (extensionId: string, providerId: string) => `${API_PREFIX}${extensionId}/${providerId}`;

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
	const names: string[] = [];
	for (const [providerId, { descriptor, instance }] of host.registry.providers) {
		const api = providerApiName(instance.id, providerId);
		names.push(providerId);
		pi.registerProvider(providerId, {
			name: descriptor.label ?? providerId,
			api: api as Api,
			baseUrl: descriptor.baseUrl ?? `pier-extension://${instance.id}`,
			apiKey: API_KEY,
			models: providerModels(providerId, descriptor.models, options.requestedModel),
			streamSimple: (model, context, streamOptions) =>
				streamProvider(host, providerId, model, context, streamOptions, options.snapshot),
		});
	}
	unregisterAtSessionEnd(pi, names);
}

/**
 * pi keeps a provider an extension registered until someone unregisters it, across /reload and the end of the
 * session. A generation's providers go when its session does (a /reload's next generation registers its own), so
 * pi's model list never offers a provider no extension answers any more.
 */
export function unregisterAtSessionEnd(pi: ExtensionAPI, names: readonly string[]): void {
	if (names.length === 0) return;
	pi.on("session_shutdown", () => {
		for (const name of names) pi.unregisterProvider(name);
	});
}

/** One turn: the extension's stream (or answer) as pi's event stream; any failure is an `error` event. */
function streamProvider(
	host: ExtensionHost,
	providerId: string,
	model: Model<Api>,
	context: TranscriptContext,
	options: SimpleStreamOptions | undefined,
	snapshot: () => ContextSnapshot | undefined,
): AssistantMessageEventStream {
	const stream = createAssistantMessageEventStream();
	const turn = new ProviderStreamTranslator(stream, model);
	// The current generation's owner, looked up per turn: a /reload may have replaced (or dropped) it.
	const owner = host.registry.providers.get(providerId)?.instance;
	const who = owner ? `extension ${owner.id} provider "${providerId}"` : `provider "${providerId}"`;
	if (!owner) {
		turn.fail(`${who} is no longer registered by any extension (was it removed by a reload?)`);
		return stream;
	}
	// An update pier cannot use ends the turn at once: the extension is told to stop (cancel).
	const local = new AbortController();
	const signal = options?.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
	let invalid: string | undefined;
	const invocationOptions = {
		...(options?.temperature !== undefined ? { temperature: options.temperature } : {}),
		...(options?.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
		...(options?.reasoning !== undefined ? { reasoning: options.reasoning } : {}),
	};
	const context_ = snapshot();
	const systemPrompt = getCurrentSystemPrompt(context.messages);
	owner
		.invoke(
			{
				kind: "provider",
				providerId,
				...(options?.sessionId ? { sessionId: options.sessionId } : {}),
				messages: context.messages.filter((m) => m.role !== "system") as unknown[],
				options: invocationOptions,
				model: modelForExtensions(model),
				...(systemPrompt ? { systemPrompt } : {}),
				tools: getCurrentTools(context.messages).map((t) => ({
					name: t.name,
					description: t.description,
					parameters: t.parameters,
				})),
			},
			{
				timeoutMs: host.timeouts.invocationMs,
				signal,
				...(context_ ? { context: context_ } : {}),
				onUpdate: (value) => {
					if (invalid !== undefined) return;
					try {
						turn.apply(value);
					} catch (error) {
						if (!(error instanceof StreamEventError)) throw error;
						invalid = error.message;
						local.abort();
					}
				},
			},
		)
		.then(
			(value) => {
				if (invalid !== undefined) return turn.fail(`${who} streamed an invalid event: ${invalid}`);
				try {
					turn.succeed(value);
				} catch (error) {
					turn.fail(`${who} answered with an invalid assistant message: ${(error as Error).message}`);
				}
			},
			(error: unknown) => {
				if (invalid !== undefined) return turn.fail(`${who} streamed an invalid event: ${invalid}`);
				const aborted = options?.signal?.aborted === true;
				turn.fail(`${who} failed: ${(error as Error).message ?? String(error)}`, aborted ? "aborted" : "error");
			},
		);
	return stream;
}
