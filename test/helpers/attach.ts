/**
 * `pier attach` in a real tmux terminal, for the tests that follow a chamber session from it (test/attach/,
 * test/chamber-web/attach-ui.test.ts).
 */
import type { TestContext } from "node:test";
import { cleanEnv, PIER_BIN } from "./pier-cli.js";
import { tmux } from "./tmux.js";

/** `pier attach <args>` in a detached tmux session; the pane stays after it exits so its last words can be read. */
export function startAttach(t: TestContext, agentDir: string, cwd: string, args: readonly string[]): string {
	const name = `pier-attach-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
	const exports = Object.entries(cleanEnv(agentDir, { TERM: "xterm-256color" }))
		.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
		.join(" ");
	const argv = args.map((a) => JSON.stringify(a)).join(" ");
	const command = `cd ${JSON.stringify(cwd)} && env -i ${exports} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} attach ${argv}; echo "[attach exited $?]"; sleep 120`;
	tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", command);
	t.after(() => {
		try {
			tmux("kill-session", "-t", name);
		} catch {
			// already gone
		}
	});
	return name;
}
