/**
 * A bad entry in mcp.json is that entry's problem alone: `pier run` names the file and the entry on stderr (pi only
 * shows them in a UI, which a headless run lacks), and the good server in the same file still connects and answers.
 * The good server is a real stdio MCP server (test/fixtures/mcp/echo-server.mjs).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

const SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "echo-server.mjs");

describe("mcp.json config errors in pier run", () => {
	for (const [what, bad, reported] of [
		["an invalid entry", { broken: { command: 42 } }, /server "broken" needs either "command" \(stdio\) or "url"/],
		["the legacy sse type", { old: { type: "sse", url: "http://127.0.0.1:9/sse" } }, /server "old": legacy SSE/],
		// pi names a server's tools mcp__<name>__…, with - and _ the same: two such names would share them.
		["a duplicate name", { my_echo: { command: "node", args: [SERVER] } }, /server "my_echo" conflicts with "my-echo"/],
	] as const) {
		test(`${what} is reported with the file and the entry, and the other server still answers`, async () => {
			using dir = tempDir();
			const file = join(dir.path, "mcp.json");
			const echo = { command: "node", args: [SERVER], exposure: "direct" };
			writeFileSync(file, JSON.stringify({ mcpServers: { "my-echo": echo, ...bad } }));
			const run = await runPier(["run", "--no-session", 'mcp__my_echo__echo {"text":"still here"}'], {
				agentDir: dir.path,
			});
			assert.equal(run.code, 0, run.stderr);
			assert.match(run.stdout, /echo: still here/);
			const line = run.stderr.split("\n").find((l) => l.startsWith("pier: MCP config error"));
			assert.ok(line?.includes(`${file}: `), run.stderr);
			assert.match(line ?? "", reported);
			const reports = run.stderr.split("\n").filter((l) => reported.test(l));
			assert.equal(reports.length, 1, `reported once (pi's start-up report does not repeat it):\n${run.stderr}`);
		});
	}
});
