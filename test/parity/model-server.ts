/**
 * The parity suite's model: a local OpenAI chat-completions server on 127.0.0.1 that answers every
 * request deterministically from the request alone, so pi and pier, given the same prompts, get the
 * same answers and can be compared byte for byte.
 *
 * Policy, on the last message of the request:
 * - a user message with lines `call <tool> <json>`: one assistant turn calling those tools (in order,
 *   ids `call_<turn>_<i>`), unless the conversation already answered those calls (then text, below);
 * - a tool result: text `tool <name> said: <first 200 chars of the result>`;
 * - any other user text: `echo: <first 200 chars of it>`;
 * - a request with no messages: `echo: (nothing)`.
 * Streaming (SSE) and non-streaming requests are both answered; text arrives in 16-character deltas.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { chunk } from "../helpers/openai-server.js";

/** The part of an OpenAI chat-completions request the policy reads. */
export interface ChatMessage {
	role: string;
	content?: unknown;
	tool_call_id?: string;
	tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
}

export interface ChatBody {
	model: string;
	stream?: boolean;
	messages?: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string } }>;
	[key: string]: unknown;
}

export interface ReceivedRequest {
	method: string;
	url: string;
	/** Only headers that both programs set the same way matter; the rest (user agents) are dropped. */
	authorization: string | undefined;
	body: ChatBody | string;
}

export interface ModelServer {
	baseUrl: string;
	requests: ReceivedRequest[];
	close(): Promise<void>;
}

export interface ToolCallPlan {
	name: string;
	arguments: string;
}

export type Reply = { kind: "text"; text: string } | { kind: "tools"; calls: ToolCallPlan[]; turn: number };

export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) {
		return content
			.map((part) => {
				const p = part as { type?: string; text?: string };
				return p.type === "text" || p.text !== undefined ? (p.text ?? "") : `[${p.type ?? "part"}]`;
			})
			.join("");
	}
	return "";
}

/** `call <tool> <json>` lines of a prompt; the JSON runs to the end of its line. */
export function toolCallsIn(text: string): ToolCallPlan[] {
	const calls: ToolCallPlan[] = [];
	for (const line of text.split("\n")) {
		const match = /^\s*call ([A-Za-z0-9_.:-]+)(?: (.*))?$/.exec(line);
		if (!match) continue;
		const raw = match[2]?.trim() || "{}";
		try {
			JSON.parse(raw);
		} catch {
			continue; // not a call: the line stays plain text
		}
		calls.push({ name: match[1]!, arguments: raw });
	}
	return calls;
}

const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** The deterministic answer to one request: a pure function of its messages. */
export function decideReply(messages: readonly ChatMessage[]): Reply {
	const last = messages.at(-1);
	if (!last) return { kind: "text", text: "echo: (nothing)" };
	if (last.role === "tool") {
		const call = messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.id === last.tool_call_id);
		return { kind: "text", text: `tool ${call?.function.name ?? "?"} said: ${clip(textOf(last.content))}` };
	}
	const text = textOf(last.content);
	const calls = last.role === "user" ? toolCallsIn(text) : [];
	if (calls.length > 0) {
		const turn = messages.filter((m) => m.role === "assistant").length + 1;
		return { kind: "tools", calls, turn };
	}
	return { kind: "text", text: `echo: ${clip(text.trim() || "(nothing)")}` };
}

const USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

function streamReply(model: string, reply: Reply): string {
	let out = chunk(model, { role: "assistant", content: reply.kind === "text" ? "" : null });
	if (reply.kind === "text") {
		for (const piece of reply.text.match(/[\s\S]{1,16}/gu) ?? []) out += chunk(model, { content: piece });
		out += chunk(model, {}, "stop");
	} else {
		reply.calls.forEach((call, index) => {
			const id = `call_${reply.turn}_${index}`;
			const head = call.arguments.slice(0, 4);
			out += chunk(model, {
				tool_calls: [{ index, id, type: "function", function: { name: call.name, arguments: head } }],
			});
			out += chunk(model, { tool_calls: [{ index, function: { arguments: call.arguments.slice(4) } }] });
		});
		out += chunk(model, {}, "tool_calls");
	}
	const usage = { id: "chatcmpl-local", object: "chat.completion.chunk", created: 1_700_000_000, model };
	out += `data: ${JSON.stringify({ ...usage, choices: [], usage: USAGE })}\n\n`;
	return `${out}data: [DONE]\n\n`;
}

function wholeReply(model: string, reply: Reply): string {
	const message =
		reply.kind === "text"
			? { role: "assistant", content: reply.text }
			: {
					role: "assistant",
					content: null,
					tool_calls: reply.calls.map((c, i) => ({
						id: `call_${reply.turn}_${i}`,
						type: "function",
						function: { name: c.name, arguments: c.arguments },
					})),
				};
	const finish = reply.kind === "text" ? "stop" : "tool_calls";
	return JSON.stringify({
		id: "chatcmpl-parity",
		object: "chat.completion",
		created: 1_700_000_000,
		model,
		choices: [{ index: 0, message, finish_reason: finish }],
		usage: USAGE,
	});
}

export async function startModelServer(): Promise<ModelServer> {
	const requests: ReceivedRequest[] = [];
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (d: string) => {
			raw += d;
		});
		req.on("end", () => {
			const auth = req.headers.authorization;
			const record: ReceivedRequest = {
				method: req.method ?? "?",
				url: req.url ?? "?",
				authorization: auth,
				body: raw,
			};
			requests.push(record);
			if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
				return;
			}
			let body: ChatBody;
			try {
				body = JSON.parse(raw) as ChatBody;
			} catch {
				res.writeHead(400, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: "request body is not JSON" } }));
				return;
			}
			record.body = body;
			const reply = decideReply(body.messages ?? []);
			if (body.stream) {
				res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
				res.end(streamReply(body.model, reply));
			} else {
				res.writeHead(200, { "content-type": "application/json" });
				res.end(wholeReply(body.model, reply));
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}/v1`,
		requests,
		close: () =>
			new Promise((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
