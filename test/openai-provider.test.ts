import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeOpenAI } from "./helpers/openai-server.js";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";
import { scriptedPackage } from "./helpers/scripted.js";

const WEATHER = join(REPO_ROOT, "examples", "extensions", "weather.ts");

/** A `models.json` whose only provider is the local fake server, as `local/local-model`. */
function configureLocalProvider(agentDir: string, baseUrl: string): void {
	const provider = {
		baseUrl,
		api: "openai-completions",
		apiKey: "local-test-key",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [{ id: "local-model", name: "Local model" }],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
}

test("a models.json OpenAI-compatible provider streams a tool call and an answer over real HTTP", async (t) => {
	using dir = tempDir();
	const server = await startFakeOpenAI();
	t.after(() => server.close());
	configureLocalProvider(dir.path, server.baseUrl);

	const result = await runPier(["run", "--mode", "json", "-e", WEATHER, "what is the weather in Oslo?"], {
		agentDir: dir.path,
	});
	assert.equal(result.code, 0, result.stderr);
	// A configured provider wins over the demo model without --model.
	assert.match(result.stderr, /model local\/local-model/);

	const events = jsonLines(result.stdout);
	const toolEnd = events.find((e) => e.type === "tool_execution_end") as unknown as {
		toolName: string;
		result: { content: { text: string }[] };
	};
	assert.equal(toolEnd.toolName, "weather");
	assert.equal(toolEnd.result.content[0]!.text, "Oslo: 10°C, light rain");
	const final = events.findLast((e) => e.type === "message_end") as unknown as {
		message: { role: string; content: { type: string; text: string }[] };
	};
	assert.equal(final.message.role, "assistant");
	assert.equal(final.message.content[0]!.text, "The forecast tool reported: Oslo: 10°C, light rain");

	assert.equal(server.requests.length, 2);
	const [first, second] = server.requests;
	assert.equal(first!.headers.authorization, "Bearer local-test-key");
	assert.equal(first!.body.model, "local-model");
	assert.equal(first!.body.stream, true);
	assert.ok(first!.body.tools?.some((tool) => tool.function.name === "weather"));
	const toolMessage = second!.body.messages.find((m) => m.role === "tool");
	assert.equal(toolMessage?.tool_call_id, "call_1");
});

test("--model picks a models.json model explicitly, and pier/demo stays selectable", async (t) => {
	using dir = tempDir();
	const server = await startFakeOpenAI();
	t.after(() => server.close());
	configureLocalProvider(dir.path, server.baseUrl);
	const demo = await runPier(["run", "--model", "pier/demo", "hello"], { agentDir: dir.path });
	assert.equal(demo.code, 0, demo.stderr);
	assert.match(demo.stdout, /offline demo model/);
	assert.equal(server.requests.length, 0);
});

test("a broken models.json is reported and the demo model still answers", async () => {
	using dir = tempDir();
	writeFileSync(join(dir.path, "models.json"), "{ not json");
	const result = await runPier(["run", "hello"], { agentDir: dir.path });
	assert.equal(result.code, 0, result.stderr);
	assert.match(result.stderr, /models\.json/);
	assert.match(result.stdout, /offline demo model/);
});

test("a process extension's before_provider_request hook replaces the payload sent over HTTP", async (t) => {
	using dir = tempDir();
	const server = await startFakeOpenAI();
	t.after(() => server.close());
	configureLocalProvider(dir.path, server.baseUrl);
	const pkg = scriptedPackage(dir.path, "rewriter", { tools: [], hooks: ["before_provider_request"], hook: "rewrite" });
	const result = await runPier(["run", "-e", pkg, "-e", WEATHER, "weather please"], { agentDir: dir.path });
	assert.equal(result.code, 0, result.stderr);
	assert.ok(server.requests.length >= 1);
	for (const request of server.requests) assert.equal(request.body.temperature, 0.123);
});

test("a process extension's before_provider_headers hook sets a request header", async (t) => {
	using dir = tempDir();
	const server = await startFakeOpenAI();
	t.after(() => server.close());
	configureLocalProvider(dir.path, server.baseUrl);
	const pkg = scriptedPackage(dir.path, "headers", { tools: [], hooks: ["before_provider_headers"], hook: "headers" });
	const result = await runPier(["run", "-e", pkg, "-e", WEATHER, "weather please"], { agentDir: dir.path });
	assert.equal(result.code, 0, result.stderr);
	assert.ok(server.requests.length >= 1);
	for (const request of server.requests) assert.equal(request.headers["x-pier-hook"], "set for local-model");
	assert.equal(server.requests[0]!.headers.authorization, "Bearer local-test-key", "auth survives the hook");
});
