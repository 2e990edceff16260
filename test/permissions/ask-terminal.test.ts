/**
 * An ask answered in pi's interactive terminal (a real tmux pane): the dialog is pi's own selector with the four
 * choices, "Allow always" runs the tool and writes the allow rule into the global settings.json, and the same
 * command then runs without asking.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { startPier, tmux, type, waitForScreen } from "../helpers/tmux.js";

test("an ask answered Allow always in the terminal runs the tool and writes the rule", async (t) => {
	using dir = tempDir();
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(agentDir);
	mkdirSync(project);
	const file = join(agentDir, "settings.json");
	writeFileSync(file, JSON.stringify({ permissions: { ask: ["bash(echo *)"] } }));
	const name = startPier(t, agentDir, join(REPO_ROOT, "examples/extensions/weather.ts"), project);
	await waitForScreen(name, /demo\s*$/m);

	type(name, 'bash {"command":"echo asked-once"}');
	const dialog = await waitForScreen(name, /Reject always/);
	assert.match(dialog, /Allow bash: echo asked-once\?/);
	assert.match(dialog, /ask rule "bash\(echo \*\)" in .*settings\.json/);
	assert.match(dialog, /Allow once[\s\S]*Allow always[\s\S]*Reject once[\s\S]*Reject always/);
	tmux("send-keys", "-t", name, "Down");
	tmux("send-keys", "-t", name, "Enter");
	await waitForScreen(name, /the bash tool says: "asked-once"/);
	assert.deepEqual(JSON.parse(readFileSync(file, "utf8")).permissions, {
		ask: ["bash(echo *)"],
		allow: ["bash(echo asked-once)"],
	});

	type(name, 'bash {"command":"echo asked-once"}');
	const again = await waitForScreen(name, /the bash tool says: "asked-once"[\s\S]*the bash tool says: "asked-once"/);
	assert.doesNotMatch(again.split("asked-once").slice(-3).join(""), /Reject always/, "not asked again");
	const decisions = readFileSync(join(agentDir, "pier-audit.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((line) => JSON.parse(line) as { decision: string; rule: string });
	assert.deepEqual(
		decisions.map((d) => [d.decision, d.rule]),
		[
			["ask-allowed", "bash(echo *)"],
			["allow", "bash(echo asked-once)"],
		],
	);
});
