/**
 * A local HTTP server that speaks the OpenAI chat-completions wire format,
 * streaming SSE chunks, so pi's real openai-completions provider can be tested
 * without the network. Its policy: call the `weather` tool on the first turn,
 * then answer quoting the tool result; with `reply: "text"`, answer every request with plain text. With
 * `usage`, the last chunk reports it (as OpenAI does for `stream_options.include_usage`).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { runPier } from "./pier-cli.js";

export interface ChatRequest {
	headers: Record<string, string | string[] | undefined>;
	body: {
		model: string;
		stream?: boolean;
		temperature?: number;
		messages: Array<{ role: string; content?: unknown; tool_call_id?: string }>;
		tools?: Array<{ type: string; function: { name: string } }>;
	};
}

export interface FakeOpenAI {
	baseUrl: string;
	requests: ChatRequest[];
	close(): Promise<void>;
}

/** One SSE `chat.completion.chunk` event (the parity model server streams with it too). */
export function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
	const body = {
		id: "chatcmpl-local",
		object: "chat.completion.chunk",
		created: 1_700_000_000,
		model,
		choices: [{ index: 0, delta, finish_reason: finish }],
	};
	return `data: ${JSON.stringify(body)}\n\n`;
}

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("");
	return "";
}

export interface FakeOpenAIOptions {
	reply?: "weather" | "text";
	/** How long to hold a text answer after its first chunk (a run to steer while it streams); 0 by default. */
	delayMs?: (body: ChatRequest["body"]) => number;
	usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens?: number } };
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
	const requests: ChatRequest[] = [];
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (d: string) => {
			raw += d;
		});
		req.on("end", async () => {
			if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			const body = JSON.parse(raw) as ChatRequest["body"];
			requests.push({ headers: req.headers, body });
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const toolMessage = body.messages.find((m) => m.role === "tool");
			if (options.reply === "text") {
				res.write(chunk(body.model, { role: "assistant", content: "A plain answer" }));
				const delay = options.delayMs?.(body) ?? 0;
				if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
				res.write(chunk(body.model, { content: " from the local server." }));
				res.write(chunk(body.model, {}, "stop"));
			} else if (toolMessage) {
				const answer = `The forecast tool reported: ${textOf(toolMessage.content)}`;
				for (const piece of answer.match(/.{1,12}/gsu) ?? []) res.write(chunk(body.model, { content: piece }));
				res.write(chunk(body.model, {}, "stop"));
			} else {
				const args = JSON.stringify({ city: "Oslo" });
				res.write(chunk(body.model, { role: "assistant", content: null }));
				res.write(
					chunk(body.model, {
						tool_calls: [
							{ index: 0, id: "call_1", type: "function", function: { name: "weather", arguments: args.slice(0, 5) } },
						],
					}),
				);
				res.write(chunk(body.model, { tool_calls: [{ index: 0, function: { arguments: args.slice(5) } }] }));
				res.write(chunk(body.model, {}, "tool_calls"));
			}
			if (options.usage) {
				const last = {
					id: "chatcmpl-local",
					object: "chat.completion.chunk",
					created: 1_700_000_000,
					model: body.model,
				};
				res.write(`data: ${JSON.stringify({ ...last, choices: [], usage: options.usage })}\n\n`);
			}
			res.write("data: [DONE]\n\n");
			res.end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/** A models.json provider `local` for this server: one model, `local-model`, with whatever else the test gives it. */
export function localProvider(baseUrl: string, model: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		baseUrl,
		api: "openai-completions",
		apiKey: "k",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [{ id: "local-model", name: "Local", input: ["text", "image"], contextWindow: 200_000, ...model }],
	};
}

/**
 * `pier <args>` against a fresh local server as models.json's `local` provider (key `users-own-key`), ended with the
 * test; the run must succeed and reach the server. For tests of what reaches the provider.
 */
export async function runAgainstLocalModel(t: TestContext, agentDir: string, args: readonly string[]) {
	const server = await startFakeOpenAI();
	t.after(() => server.close());
	const provider = {
		baseUrl: server.baseUrl,
		api: "openai-completions",
		apiKey: "users-own-key",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [{ id: "local-model", name: "Local model" }],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
	const result = await runPier(args, { agentDir, timeoutMs: 60_000 });
	assert.equal(result.code, 0, result.stderr);
	assert.ok(server.requests.length >= 1, "the provider was asked");
	return { result, requests: server.requests };
}
