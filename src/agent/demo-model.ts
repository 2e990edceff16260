/**
 * pier/demo: an offline model so that pier does something useful with nothing configured.
 *
 * It is pi-ai's faux provider with a deterministic policy on top:
 *  - `toolname {json}` in the latest user message calls that active tool with that JSON;
 *  - once the tool results for that message are in, it answers by quoting them;
 *  - anything else gets a short explanation of what it is and how to configure a real model.
 * The faux provider streams the text in deltas, as a real provider would.
 */
import {
	type AssistantMessage,
	createFauxCore,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
	getCurrentTools,
	type JsonObject,
	type Message,
	type SimpleStreamOptions,
	type TranscriptContext,
} from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { offerApi } from "../pi-seams/api-providers.js";

export const DEMO_PROVIDER = "pier";
export const DEMO_MODEL_ID = "demo";
export const DEMO_MODEL_REF = `${DEMO_PROVIDER}/${DEMO_MODEL_ID}`;
const DEMO_API = "pier-demo";

const DEMO_MODEL = {
	id: DEMO_MODEL_ID,
	name: "pier offline demo",
	reasoning: false,
	input: ["text"] as ("text" | "image")[],
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
	contextWindow: 128_000,
	maxTokens: 4_096,
};

/** What the demo model decides to do for a conversation. */
export type DemoDecision = { kind: "tool_call"; tool: string; args: JsonObject } | { kind: "text"; text: string };

function textOf(message: Message): string {
	if (message.role === "assistant") return "";
	if (typeof message.content === "string") return message.content;
	return message.content
		.filter((block) => block.type === "text")
		.map((block) => (block as { text: string }).text)
		.join("\n");
}

/** `name {json}` where the JSON object runs to the end of the message. */
function parseToolRequest(text: string): { tool: string; args: JsonObject } | undefined {
	const match = /(?:^|\s)([A-Za-z0-9_.:-]+)\s*(\{[\s\S]*\})\s*$/.exec(text);
	if (!match) return undefined;
	try {
		const args: unknown = JSON.parse(match[2]!);
		if (args === null || typeof args !== "object" || Array.isArray(args)) return undefined;
		return { tool: match[1]!, args: args as JsonObject };
	} catch {
		return undefined;
	}
}

/** In the chamber (`pier serve` marks the process, as PiChamber extensions expect), models are set up in the page. */
const inChamber = () => (globalThis as Record<string, unknown>).__PICHAMBER__ !== undefined;

export function explainDemo(prompt: string): string {
	const shown = prompt.length > 80 ? `${prompt.slice(0, 77)}...` : prompt;
	const setUp = inChamber()
		? [
				"To use a real model, open Providers in the Account menu at the top of this page: set an API key",
				"(stored in pi's auth.json) or add an OpenAI-compatible provider, then pick its model in the model picker",
				"below the composer.",
			]
		: [
				"To use a real model, set a provider API key such as ANTHROPIC_API_KEY or OPENAI_API_KEY,",
				"or add a provider to ~/.pi/agent/models.json, then choose it with --model provider/id.",
			];
	return [
		`This is pier's offline demo model (${DEMO_MODEL_REF}); it does not understand "${shown}".`,
		...setUp,
		'The demo model can call tools: type a tool name followed by JSON arguments, e.g. weather {"city":"London"}.',
	].join(" ");
}

/** The demo model's whole policy, as a pure function of the conversation (its tools are the system messages'). */
export function decideDemoReply(context: Pick<TranscriptContext, "messages">): DemoDecision {
	const messages = context.messages;
	let lastUser = -1;
	for (let i = messages.length - 1; i >= 0; i--) {
		if (messages[i]!.role === "user") {
			lastUser = i;
			break;
		}
	}
	const prompt = lastUser >= 0 ? textOf(messages[lastUser]!).trim() : "";
	const results = messages.slice(lastUser + 1).filter((m) => m.role === "toolResult");
	if (results.length > 0) {
		const quoted = results.map((r) => {
			const text = textOf(r).trim() || "(no text)";
			return r.isError ? `the ${r.toolName} tool failed: "${text}"` : `the ${r.toolName} tool says: "${text}"`;
		});
		return { kind: "text", text: `Done: ${quoted.join("; ")}.` };
	}
	const request = parseToolRequest(prompt);
	const active = new Set(getCurrentTools(messages).map((t) => t.name));
	if (request && active.has(request.tool)) return { kind: "tool_call", ...request };
	if (request) {
		const names = [...active].sort().join(", ") || "none";
		return {
			kind: "text",
			text: `The demo model has no active tool named "${request.tool}" (active tools: ${names}).`,
		};
	}
	return { kind: "text", text: explainDemo(prompt) };
}

function respond(context: TranscriptContext): AssistantMessage {
	const decision = decideDemoReply(context);
	if (decision.kind === "tool_call") {
		return fauxAssistantMessage([fauxToolCall(decision.tool, decision.args)], { stopReason: "toolUse" });
	}
	return fauxAssistantMessage(fauxText(decision.text));
}

type StreamSimple = NonNullable<Parameters<ModelRuntime["registerProvider"]>[1]["streamSimple"]>;
let demoStream: StreamSimple | undefined;
let paced = true;

/**
 * `pier run` prints the answer whole (or as JSON events nobody watches arrive), so pacing the text would only
 * be waiting (about 50 ms for the explanation, bench startup.run): the deltas come without delay. Applies
 * from the first registration on, so it is called before any session exists.
 */
export function unpaceDemoModel(): void {
	paced = false;
}

/**
 * The faux provider answers from a queue. Each step refills it, and the queue is kept
 * deep enough that concurrent sessions (the chamber runs many) never find it empty.
 */
function createDemoStream(): StreamSimple {
	const QUEUE_DEPTH = 64;
	const faux = createFauxCore({
		api: DEMO_API,
		provider: DEMO_PROVIDER,
		models: [DEMO_MODEL],
		// Fast enough for tests, slow enough that a browser sees the text arrive in pieces (0: no delay).
		tokensPerSecond: paced ? 2_000 : 0,
		tokenSize: { min: 2, max: 4 },
	});
	const step = (context: TranscriptContext) => {
		const missing = QUEUE_DEPTH - faux.getPendingResponseCount();
		if (missing > 0) faux.appendResponses(Array.from({ length: missing }, () => step));
		return respond(context);
	};
	faux.setResponses(Array.from({ length: QUEUE_DEPTH }, () => step));
	// The faux provider estimates prompt caching by keeping each session's whole last prompt, by session id, for
	// the life of the process: a daemon would hold one per session it ever ran (about 5 KB for a session of one
	// turn, the full transcript's text for a long one), closed or not. The demo reports no cache reads instead.
	return (model, context, options) =>
		faux.streamSimple(model, context, { ...options, cacheRetention: "none" } as SimpleStreamOptions);
}

/**
 * Registers pier/demo on a model runtime. Registered providers survive
 * `ModelRuntime.refresh()`. Because it is
 * appended after the built-in and models.json providers, pi's own default-model
 * choice only falls to it when nothing else is configured.
 */
export function installDemoModel(registry: Pick<ModelRuntime, "registerProvider">): void {
	demoStream ??= createDemoStream();
	// The demo's API is also one a models.json provider may name: an offline provider of the user's own (tests and
	// demos that need a model with headers, a key or a URL of their own, answered without any network).
	offerApi(DEMO_API, demoStream);
	registry.registerProvider(DEMO_PROVIDER, {
		name: "pier (offline demo)",
		api: DEMO_API,
		baseUrl: "http://localhost:0",
		// A literal key marks the provider as configured; nothing is ever sent anywhere.
		apiKey: "pier-demo-offline",
		streamSimple: demoStream,
		models: [DEMO_MODEL],
	});
}
