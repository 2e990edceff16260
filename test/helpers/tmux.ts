/** pier's interactive terminal driven in a detached tmux session (test/interactive.test.ts and others). */
import { execFileSync } from "node:child_process";
import type { TestContext } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cleanEnv, PIER_BIN } from "./pier-cli.js";

export function tmux(...args: string[]): string {
	return execFileSync("tmux", args, { encoding: "utf8" });
}

export async function waitForScreen(target: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	let screen = "";
	while (Date.now() < deadline) {
		screen = tmux("capture-pane", "-p", "-t", target, "-S", "-200");
		if (pattern.test(screen)) return screen;
		await sleep(200);
	}
	throw new Error(`screen never showed ${pattern}:\n${screen}`);
}

/** Waits until the visible pane no longer shows `pattern` (a closed overlay, a dismissed dialog); returns that screen. */
export async function waitForScreenWithout(target: string, pattern: RegExp, timeoutMs = 30_000): Promise<string> {
	const deadline = Date.now() + timeoutMs;
	let screen = "";
	while (Date.now() < deadline) {
		screen = tmux("capture-pane", "-p", "-t", target);
		if (!pattern.test(screen)) return screen;
		await sleep(200);
	}
	throw new Error(`screen still shows ${pattern}:\n${screen}`);
}

/**
 * `pier -e <extension>` in a detached tmux session (120×40 unless `width`) with a clean pi agent dir; returns the
 * session name. `quiet` sends pier's stderr nowhere, for a screen that must show only pi's terminal; `args` follow
 * the extension on pier's command line (more `-e`s).
 */
export function startPier(
	t: TestContext,
	agentDir: string,
	extension: string,
	cwd = agentDir,
	options: { width?: number; quiet?: boolean; args?: readonly string[] } = {},
): string {
	const name = `pier-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	const exports = Object.entries(cleanEnv(agentDir, { TERM: "xterm-256color" }))
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	const command = `cd ${JSON.stringify(cwd)} && env -i ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} -e ${JSON.stringify(extension)}${(options.args ?? []).map((a) => ` ${JSON.stringify(a)}`).join("")}${options.quiet ? " 2>/dev/null" : ""}`;
	tmux("new-session", "-d", "-s", name, "-x", String(options.width ?? 120), "-y", "40", command);
	t.after(() => {
		try {
			tmux("kill-session", "-t", name);
		} catch {
			// already gone
		}
	});
	return name;
}

export function type(name: string, text: string): void {
	tmux("send-keys", "-t", name, "-l", text);
	tmux("send-keys", "-t", name, "Enter");
}
