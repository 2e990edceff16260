import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cleanEnv, PIER_BIN, REPO_ROOT, tempDir } from "./helpers/pier-cli.js";

function tmux(...args: string[]): string {
	return execFileSync("tmux", args, { encoding: "utf8" });
}

async function waitForScreen(target: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	let screen = "";
	while (Date.now() < deadline) {
		screen = tmux("capture-pane", "-p", "-t", target, "-S", "-200");
		if (pattern.test(screen)) return screen;
		await sleep(200);
	}
	throw new Error(`screen never showed ${pattern}:\n${screen}`);
}

test("pier with no prompt runs pi's interactive terminal, answered by the demo model", async (t) => {
	using dir = tempDir();
	const name = `pier-test-${process.pid}`;
	const env = cleanEnv(dir.path, { TERM: "xterm-256color" });
	const exports = Object.entries(env)
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	const weather = join(REPO_ROOT, "examples/extensions/weather.ts");
	tmux(
		"new-session",
		"-d",
		"-s",
		name,
		"-x",
		"120",
		"-y",
		"40",
		`cd ${JSON.stringify(dir.path)} && env -i ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} -e ${JSON.stringify(weather)}`,
	);
	t.after(() => {
		try {
			tmux("kill-session", "-t", name);
		} catch {
			// already gone
		}
	});
	await waitForScreen(name, /pier\/demo|demo/);
	tmux("send-keys", "-t", name, "/weather Oslo", "Enter");
	await waitForScreen(name, /Oslo: 10°C, light rain/);
	tmux("send-keys", "-t", name, "-l", 'weather {"city":"Paris"}');
	tmux("send-keys", "-t", name, "Enter");
	await waitForScreen(name, /the weather tool says: "Paris: /);
	tmux("send-keys", "-t", name, "-l", "hello");
	tmux("send-keys", "-t", name, "Enter");
	const screen = await waitForScreen(name, /offline demo model \(pier\/demo\)/);
	assert.match(screen, /hello/);
});

test("a process extension's command notifies in pi's terminal UI", async (t) => {
	using dir = tempDir();
	const name = `pier-test-proc-${process.pid}`;
	const env = cleanEnv(dir.path, { TERM: "xterm-256color" });
	const exports = Object.entries(env)
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	const extension = join(REPO_ROOT, "examples/process/node-weather");
	tmux(
		"new-session",
		"-d",
		"-s",
		name,
		"-x",
		"120",
		"-y",
		"40",
		`cd ${JSON.stringify(dir.path)} && env -i ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} -e ${JSON.stringify(extension)}`,
	);
	t.after(() => {
		try {
			tmux("kill-session", "-t", name);
		} catch {
			// already gone
		}
	});
	await waitForScreen(name, /demo\s*$/m);
	tmux("send-keys", "-t", name, "-l", "/forecast Oslo");
	tmux("send-keys", "-t", name, "Enter");
	await waitForScreen(name, /Oslo: 10°C, light rain \(from a process extension\)/);
});
