/**
 * rpi's provider form end to end in `pier run`: a process extension written directly in JSONL
 * (test/fixtures/process/raw-provider) streams its turn as `update` frames and answers `success(null)`; the
 * events become pi's message events, a tool call really runs the tool and the second turn finishes, and every
 * failure is an error message of the turn (secrets redacted), never a crash.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

type Event = { type: string; assistantMessageEvent?: { type: string; delta?: string; content?: string } };
type Message = {
	role: string;
	content: { type: string; text?: string; thinking?: string; name?: string; id?: string; arguments?: unknown }[];
	stopReason?: string;
	errorMessage?: string;
	api?: string;
	usage?: { input: number; output: number; totalTokens: number };
};

async function json(prompt: string, dir: string) {
	const result = await runPier(["run", "--mode", "json", "-e", RAW, "--model", "raw-llm/default", prompt], {
		agentDir: dir,
	});
	const events = jsonLines(result.stdout) as unknown as (Event & { message?: Message })[];
	const assistants = events
		.filter((e) => e.type === "message_end" && e.message?.role === "assistant")
		.map((e) => e.message!);
	return { result, events, assistants };
}

describe("rpi's provider stream form in pier run", () => {
	test("start, thinking, text, text_delta, text and done arrive in order as pi's events", async () => {
		using dir = tempDir();
		const { result, events, assistants } = await json("hi", dir.path);
		assert.equal(result.code, 0, result.stderr);
		const kinds = events
			.filter((e) => e.type === "message_update")
			.map((e) => e.assistantMessageEvent!)
			.map((e) => (e.delta !== undefined ? `${e.type}:${e.delta}` : e.type));
		assert.deepEqual(kinds, [
			"thinking_start",
			"thinking_delta:hmm",
			"thinking_end",
			"text_start",
			"text_delta:raw: hello",
			"text_delta: world",
			"text_end",
			"text_start",
			"text_delta:messages=1 session",
			"text_end",
		]);
		const [message] = assistants;
		assert.deepEqual(message!.content, [
			{ type: "thinking", thinking: "hmm" },
			{ type: "text", text: "raw: hello world" },
			{ type: "text", text: "messages=1 session" },
		]);
		assert.equal(message!.stopReason, "stop");
		assert.equal(message!.api, "pier-extension/raw-provider/raw-llm");
	});

	test("a tool_call runs the extension's tool and the second turn answers with its result", async () => {
		using dir = tempDir();
		const { result, events, assistants } = await json("tool", dir.path);
		assert.equal(result.code, 0, result.stderr);
		assert.equal(assistants.length, 2);
		const [first, second] = assistants;
		assert.deepEqual(first!.content, [
			{ type: "text", text: "calling shout" },
			{ type: "toolCall", id: "call-1", name: "shout", arguments: { text: "hello tool" } },
		]);
		assert.equal(first!.stopReason, "toolUse", "rpi's tool_use is pi's toolUse");
		const toolEnd = events.find((e) => e.type === "tool_execution_end") as unknown as {
			toolName: string;
			result: { content: { text: string }[] };
			isError: boolean;
		};
		assert.equal(toolEnd.toolName, "shout");
		assert.equal(toolEnd.isError, false);
		assert.equal(toolEnd.result.content[0]!.text, "HELLO TOOL");
		assert.deepEqual(second!.content, [{ type: "text", text: "the tool said: HELLO TOOL" }]);
		assert.equal(second!.stopReason, "stop");
		const deltas = events.map((e) => e.assistantMessageEvent?.type).filter((t) => t?.startsWith("toolcall"));
		assert.deepEqual(deltas, ["toolcall_start", "toolcall_delta", "toolcall_end"]);
	});

	test("done may carry the whole message: it is the turn's answer, shown as if streamed", async () => {
		using dir = tempDir();
		const { result, assistants } = await json("done-msg", dir.path);
		assert.equal(result.code, 0, result.stderr);
		assert.deepEqual(assistants[0]!.content, [{ type: "text", text: "from done" }]);
		assert.equal(assistants[0]!.usage!.totalTokens, 5);
		assert.equal(result.stdout.includes('"text_delta","contentIndex":0,"delta":"from done"'), true);
	});

	test("a failing stream is a typed error message with its secret redacted", async () => {
		using dir = tempDir();
		const { result, assistants } = await json("throw", dir.path);
		const [message] = assistants;
		assert.equal(message!.stopReason, "error");
		assert.match(message!.errorMessage!, /extension raw-provider provider "raw-llm" failed: boom/);
		assert.ok(!message!.errorMessage!.includes("abc123"), message!.errorMessage);
		assert.match(message!.errorMessage!, /api_key=\[REDACTED\]/);
		assert.ok(!result.stdout.includes("abc123") && !result.stderr.includes("abc123"));
		const printed = await runPier(["run", "-e", RAW, "--model", "raw-llm/default", "throw"], { agentDir: dir.path });
		assert.equal(printed.code, 1, "print mode fails the run");
		assert.match(printed.stderr, /failed: boom: upstream refused api_key=\[REDACTED\]/);
	});

	test("an error event ends the turn with its text verbatim", async () => {
		using dir = tempDir();
		const { assistants } = await json("error", dir.path);
		assert.equal(assistants[0]!.stopReason, "error");
		assert.equal(assistants[0]!.errorMessage, "provider says no");
	});

	test("an event outside the vocabulary fails the turn, keeps what streamed, and names the type", async () => {
		using dir = tempDir();
		const { assistants } = await json("bad-event", dir.path);
		assert.equal(assistants[0]!.stopReason, "error");
		assert.equal(
			assistants[0]!.errorMessage,
			'extension raw-provider provider "raw-llm" streamed an invalid event: unknown provider stream event type "sparkle"',
		);
		assert.deepEqual(assistants[0]!.content, [{ type: "text", text: "partial" }]);
	});

	test("print mode prints the streamed text", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", RAW, "--model", "raw-llm/default", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), "raw: hello world\nmessages=1 session");
	});
});
