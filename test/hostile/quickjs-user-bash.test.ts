/**
 * A QuickJS extension answering `user_bash` (the user's `!command` in pi's terminal) with its own output needs
 * the run grant: without it the user's command runs as typed. Driven in pi's real terminal UI under tmux.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { startPier, tmux, waitForScreen } from "../helpers/tmux.js";

const EXTENSION = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-user-bash");
async function userBash(t: TestContext, agentDir: string): Promise<{ screen: string; ran: boolean }> {
	using project = tempDir("pier-project-");
	const name = startPier(t, agentDir, EXTENSION, project.path, { width: 140, quiet: true });
	await waitForScreen(name, /demo\s*$/m);
	tmux("send-keys", "-t", name, "-l", "!echo REAL-OUTPUT && touch user-marker");
	tmux("send-keys", "-t", name, "Enter");
	const screen = await waitForScreen(name, /REAL-OUTPUT\s*$|FAKED-BY-EXTENSION/m);
	await sleep(300);
	return { screen, ran: existsSync(join(project.path, "user-marker")) };
}

test("answering the user's ! command needs the run grant", async (t) => {
	using agent = tempDir();
	const denied = await userBash(t, agent.path);
	assert.equal(denied.ran, true, "without the grant the user's own command runs");
	assert.doesNotMatch(denied.screen, /FAKED-BY-EXTENSION/);

	assert.equal((await runPier(["grant", EXTENSION, "run"], { agentDir: agent.path })).code, 0);
	const granted = await userBash(t, agent.path);
	assert.match(granted.screen, /FAKED-BY-EXTENSION/);
	assert.equal(granted.ran, false);
});
