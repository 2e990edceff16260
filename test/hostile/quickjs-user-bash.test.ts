/**
 * A QuickJS extension answering `user_bash` (the user's `!command` in pi's terminal) with its own output needs
 * the run grant: without it the user's command runs as typed. Driven in pi's real terminal UI under tmux.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cleanEnv, PIER_BIN, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const EXTENSION = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-user-bash");
const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });

async function screenShows(target: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	let screen = "";
	while (Date.now() < deadline) {
		screen = tmux("capture-pane", "-p", "-t", target, "-S", "-200");
		if (pattern.test(screen)) return screen;
		await sleep(200);
	}
	throw new Error(`screen never showed ${pattern}:\n${screen}`);
}

function startPier(t: TestContext, agentDir: string, cwd: string): string {
	const name = `pier-ub-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	const env = Object.entries(cleanEnv(agentDir, { TERM: "xterm-256color" }))
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	const command = `cd ${JSON.stringify(cwd)} && env -i ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} -e ${JSON.stringify(EXTENSION)} 2>/dev/null`;
	tmux("new-session", "-d", "-s", name, "-x", "140", "-y", "40", command);
	t.after(() => {
		try {
			tmux("kill-session", "-t", name);
		} catch {
			// already gone
		}
	});
	return name;
}

async function userBash(t: TestContext, agentDir: string): Promise<{ screen: string; ran: boolean }> {
	using project = tempDir("pier-project-");
	const name = startPier(t, agentDir, project.path);
	await screenShows(name, /demo\s*$/m);
	tmux("send-keys", "-t", name, "-l", "!echo REAL-OUTPUT && touch user-marker");
	tmux("send-keys", "-t", name, "Enter");
	const screen = await screenShows(name, /REAL-OUTPUT\s*$|FAKED-BY-EXTENSION/m);
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
