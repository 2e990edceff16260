import assert from "node:assert/strict";
import { test } from "node:test";
import { type Message, normalizeContext, type TranscriptContext } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { decideDemoReply, installDemoModel, unpaceDemoModel } from "../../src/agent/demo-model.js";

const tool = (name: string) => ({ name, description: name, parameters: Type.Object({}) });
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], timestamp: 0 });
const result = (toolName: string, text: string, isError = false): Message => ({
	role: "toolResult",
	toolCallId: "c1",
	toolName,
	content: [{ type: "text", text }],
	isError,
	timestamp: 0,
});
// As pi's agent sends it: the tools in the leading system message.
const ctx = (messages: Message[], tools = [tool("weather")]): TranscriptContext =>
	normalizeContext({ systemPrompt: "You are a test.", messages, tools });

test("a tool name followed by a JSON object calls that tool with those arguments", () => {
	assert.deepEqual(decideDemoReply(ctx([user('weather {"city":"London"}')])), {
		kind: "tool_call",
		tool: "weather",
		args: { city: "London" },
	});
	assert.deepEqual(decideDemoReply(ctx([user('please run weather {"city":"Oslo", "days": 2}')])), {
		kind: "tool_call",
		tool: "weather",
		args: { city: "Oslo", days: 2 },
	});
});

test("after the tool ran, the answer quotes its text result (and says when it failed)", () => {
	const ok = decideDemoReply(ctx([user('weather {"city":"Oslo"}'), result("weather", "Oslo: 4°C")]));
	assert.deepEqual(ok, { kind: "text", text: 'Done: the weather tool says: "Oslo: 4°C".' });
	const failed = decideDemoReply(ctx([user('weather {"city":"Oslo"}'), result("weather", "boom", true)]));
	assert.deepEqual(failed, { kind: "text", text: 'Done: the weather tool failed: "boom".' });
});

test("results of an earlier prompt do not leak into the next answer", () => {
	const reply = decideDemoReply(ctx([user('weather {"city":"Oslo"}'), result("weather", "Oslo: 4°C"), user("thanks")]));
	assert.equal(reply.kind, "text");
	assert.match((reply as { text: string }).text, /offline demo model/);
});

test("inactive tools, non-object JSON and invalid JSON are not called", () => {
	for (const prompt of ['search {"q":"x"}', "weather [1,2]", "weather {not json}", "weather null"]) {
		assert.equal(decideDemoReply(ctx([user(prompt)])).kind, "text", prompt);
	}
	const missing = decideDemoReply(ctx([user('search {"q":"x"}')]));
	assert.match((missing as { text: string }).text, /no active tool named "search" \(active tools: weather\)/);
});

test("the plain answer names the model and how to configure a real one", () => {
	const reply = decideDemoReply(ctx([user("hello")], []));
	assert.equal(reply.kind, "text");
	const text = (reply as { text: string }).text;
	assert.match(text, /pier\/demo/);
	assert.match(text, /API key/);
	assert.match(text, /models\.json/);
	assert.equal(decideDemoReply(ctx([user("hello")], [])).kind, "text");
	assert.deepEqual(decideDemoReply(ctx([user("hello")], [])), reply, "deterministic");
});

// pi-ai's faux provider, under the demo, keeps each session's last prompt by session id for the life of the
// process, to estimate cache reads: a daemon would hold one per session it ever ran. The demo turns that off.
test("the demo model keeps nothing per session: a later turn of a session reads no cache", async () => {
	unpaceDemoModel();
	type Config = Parameters<ModelRuntime["registerProvider"]>[1];
	let provider: Config | undefined;
	const registry = {
		registerProvider: (_name: string, config: Config) => {
			provider = config;
		},
	};
	installDemoModel(registry as unknown as ModelRuntime);
	const stream = provider!.streamSimple!;
	const model = { ...provider!.models![0]!, api: provider!.api!, provider: "pier", baseUrl: provider!.baseUrl! };
	const turn = (messages: Message[]) =>
		stream(model as never, normalizeContext({ systemPrompt: "You are a test.", messages }), {
			sessionId: "s1",
		}).result();
	const first = await turn([user("hello")]);
	const second = await turn([user("hello"), first, user("hello again")]);
	assert.equal(second.stopReason, "stop");
	assert.ok(second.usage.input > first.usage.input, "the second prompt is longer and counted whole");
	assert.equal(second.usage.cacheRead, 0);
	assert.equal(second.usage.cacheWrite, 0);
});
