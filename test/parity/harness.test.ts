/** The parity harness's own parts: the model's policy over real HTTP, the normaliser, the known list. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { explain } from "./known.js";
import { decideReply, startModelServer, toolCallsIn } from "./model-server.js";
import { Normaliser } from "./normalise.js";

test("the model calls the tools a prompt names, then answers from their results, else echoes", () => {
	assert.deepEqual(toolCallsIn('call hello {"name":"A"}\ncall bash {"command":"ls"}\ncall broken {nope'), [
		{ name: "hello", arguments: '{"name":"A"}' },
		{ name: "bash", arguments: '{"command":"ls"}' },
	]);
	assert.deepEqual(decideReply([{ role: "user", content: "call finish_and_exit" }]), {
		kind: "tools",
		calls: [{ name: "finish_and_exit", arguments: "{}" }],
		turn: 1,
	});
	const afterTool = decideReply([
		{ role: "user", content: "call hello {}" },
		{ role: "assistant", tool_calls: [{ id: "call_1_0", function: { name: "hello", arguments: "{}" } }] },
		{ role: "tool", tool_call_id: "call_1_0", content: "Hello!" },
	]);
	assert.deepEqual(afterTool, { kind: "text", text: "tool hello said: Hello!" });
	assert.deepEqual(decideReply([{ role: "user", content: [{ type: "text", text: "hi" }] }]), {
		kind: "text",
		text: "echo: hi",
	});
	assert.equal((decideReply([{ role: "user", content: "x".repeat(300) }]) as { text: string }).text.length, 207);
});

test("the model server streams SSE text and tool calls, records each request, and refuses other routes", async (t) => {
	const server = await startModelServer();
	t.after(() => server.close());
	const post = (messages: unknown[]) =>
		fetch(`${server.baseUrl}/chat/completions`, {
			method: "POST",
			headers: { authorization: "Bearer k", "content-type": "application/json" },
			body: JSON.stringify({ model: "m", stream: true, messages }),
		}).then((r) => r.text());
	const text = await post([{ role: "user", content: "hello there" }]);
	const deltas = text
		.split("\n\n")
		.filter((e) => e.startsWith("data: {"))
		.map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? "")
		.join("");
	assert.equal(deltas, "echo: hello there");
	assert.match(text, /data: \[DONE\]\n\n$/);
	const tools = await post([{ role: "user", content: 'call hello {"name":"B"}' }]);
	assert.match(tools, /"id":"call_1_0","type":"function","function":\{"name":"hello"/);
	assert.match(tools, /"finish_reason":"tool_calls"/);
	assert.equal(server.requests.length, 2);
	assert.equal(server.requests[0]!.authorization, "Bearer k");
	assert.equal((await fetch(`${server.baseUrl}/models`)).status, 404);
});

test("the normaliser labels ids by first appearance and drops only pier's own stderr lines", () => {
	const n = new Normaliser("/tmp/parity-abc");
	const line = JSON.stringify({
		type: "message",
		id: "9ec63047",
		parentId: "9ec63047",
		timestamp: "2026-12-01T10:57:00.279Z",
		message: { timestamp: 1796122620301, text: "at /tmp/parity-abc/project on 127.0.0.1:4567" },
	});
	assert.equal(
		n.jsonLines(line),
		'{"type":"message","id":"<id-1>","parentId":"<id-1>","timestamp":"<time>","message":{"timestamp":"<time>","text":"at <root>/project on 127.0.0.1:<port>"}}',
	);
	assert.equal(
		n.text("sessions/--tmp-parity-abc-project--/2026-12-01T10-57-00-157Z_01a23140-30fd-73ec-b6a4-c15f4a4ae07c.jsonl"),
		"sessions/--<root>-project--/<time>_<uuid-1>.jsonl",
	);
	const stderr = "pier: model parity/parity-model · session x\npier: error: Failed to load\nother\n";
	assert.equal(n.stderr(stderr, true), "Error: Failed to load\nother\n");
	assert.equal(n.stderr(stderr, false), stderr, "pi's stderr is never rewritten so");
});

test("a known difference explains only the output its rewrite makes pi's", () => {
	const pi = '{"stderr":""}';
	assert.ok(explain("subagent", "json", "stdout", pi, '{"stderr":"pier: model parity/parity-model\\n"}'));
	assert.equal(explain("subagent", "json", "stdout", pi, '{"stderr":"pier: model x\\n","more":1}'), undefined);
	assert.equal(explain("hello.ts", "json", "stdout", pi, '{"stderr":"pier: model x\\n"}'), undefined);
	assert.equal(explain("subagent", "json", "exit", "0", "1"), undefined);
});
