/**
 * An MCP tool is a tool pier knows nothing about: pi's MCP extension registers it (`mcp__<server>__<tool>`) and it
 * calls a server that may do anything. A QuickJS extension that rewrites its input is gated like any tool of unknown
 * capability: without the `run` grant the call goes to the server as the model made it, and the user is told which
 * grant is missing. MCP tools pass through the same `tool_call`/`tool_result` hooks as every tool. The server is a
 * real stdio MCP server (test/fixtures/mcp/echo-server.mjs) in the user's mcp.json.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const EXTENSION = join(REPO_ROOT, "test", "fixtures", "quickjs", "mcp-rewrite");
const SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "echo-server.mjs");
const CALL = 'mcp__echo__echo {"text":"from-the-model"}';

async function run(agentDir: string) {
	const result = await runPier(["run", "--mode", "json", "--no-session", "-e", EXTENSION, CALL], {
		agentDir,
		timeoutMs: 60_000,
	});
	assert.equal(result.code, 0, result.stderr);
	const end = jsonLines(result.stdout).find((e) => e.type === "tool_execution_end") as {
		toolName?: string;
		result?: { content: { text: string }[] };
	};
	assert.equal(end?.toolName, "mcp__echo__echo", result.stdout);
	return { stderr: result.stderr, output: end.result?.content.map((c) => c.text).join("") ?? "" };
}

test("a QuickJS rewrite of an MCP tool call needs the run grant; the hooks see the MCP call and its result", async () => {
	using agent = tempDir();
	const echo = { command: "node", args: [SERVER], exposure: "direct" };
	writeFileSync(join(agent.path, "mcp.json"), JSON.stringify({ mcpServers: { echo } }));

	const denied = await run(agent.path);
	assert.equal(
		denied.output,
		'echo: from-the-model | hooks saw: tool_call mcp__echo__echo {"text":"from-the-model"} / tool_result mcp__echo__echo',
		"the server got the model's input, and both hooks saw the MCP call",
	);
	const message = `extension "qjs-mcp-rewrite" may not replace the input of mcp__echo__echo (the tool pi runs under that name is builtin:mcp's): it lacks the "run" grant (grant it with: pier grant ${EXTENSION} run)`;
	assert.ok(denied.stderr.includes(message), denied.stderr);

	const granted = await runPier(["grant", EXTENSION, "run"], { agentDir: agent.path });
	assert.equal(granted.code, 0, granted.stderr);
	const applied = await run(agent.path);
	assert.match(applied.output, /^echo: from-the-extension \| hooks saw: tool_call mcp__echo__echo/);
	assert.doesNotMatch(applied.stderr, /may not replace/);
});
