/**
 * The terminal's trust question with a malformed `.pi/mcp.json`: the file is named with a note (the question is
 * asked, nothing crashes), and trusting the project runs the session, where pi reports the file itself.
 * The question with well-formed servers is in test/hostile/mcp-untrusted-project.test.ts.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tempDir } from "./helpers/pier-cli.js";
import { startPier, type, waitForScreen } from "./helpers/tmux.js";

test("a malformed .pi/mcp.json is named in the terminal's trust question with a note, and the session runs", async (t) => {
	using dir = tempDir();
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(agentDir);
	mkdirSync(join(project, ".pi"), { recursive: true });
	writeFileSync(join(project, ".pi", "mcp.json"), '{"mcpServers": {"echo": {"command": "node",}}}');
	const name = startPier(t, agentDir, join(REPO_ROOT, "examples/extensions/weather.ts"), project);
	const screen = await waitForScreen(name, /Choose 1-5/);
	assert.match(screen, /has files pier would load: \.pi\/mcp\.json/);
	assert.match(screen, /\.pi\/mcp\.json is malformed: it is not valid JSON \(.*line 1, column \d+\)/);
	assert.doesNotMatch(screen, /"command"/, "the note quotes none of the file");
	type(name, "3"); // Trust (this session only)
	await waitForScreen(name, /demo\s*$/m);
	type(name, "/weather Oslo");
	await waitForScreen(name, /Oslo: 10°C, light rain/);
});
