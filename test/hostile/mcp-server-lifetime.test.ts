/**
 * No MCP server outlives its session. A real stdio server (test/fixtures/mcp/forking-server.mjs) starts a grandchild
 * (`sleep 1000`) that ignores the server's pipes: ending the session must end both, the server and its process
 * group, when `pier run` ends, when the chamber deletes the session, and when `pier serve` gets SIGTERM. A stubborn
 * grandchild ignores SIGTERM, which is all pi's own close sends the group once the server exited: before pier ended
 * the group itself (src/agent/mcp-process-groups.ts) it outlived every session.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type ApiClient, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { isAlive } from "../helpers/scripted.js";

const SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "forking-server.mjs");

/** The user's mcp.json with the forking server; its pids (the grandchild's, then its own) go to `pids`. */
function forkingServerConfig(agentDir: string, pids: string, stubborn: boolean): void {
	const env = { MCP_PID_FILE: pids, ...(stubborn ? { MCP_STUBBORN_CHILD: "1" } : {}) };
	const echo = { command: "node", args: [SERVER], exposure: "direct", env };
	writeFileSync(join(agentDir, "mcp.json"), JSON.stringify({ mcpServers: { echo } }));
}

const pidsIn = (file: string): number[] =>
	existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map(Number) : [];

/** Waits (bounded) until `probe` holds; the bound is generous for 2 shared cores, not a claim about speed. */
async function until(what: string, probe: () => boolean, timeoutMs = 20_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!probe()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((done) => setTimeout(done, 100));
	}
}

/** A chamber session in `cwd` whose echo tool answered once: its server and grandchild run now. */
async function sessionWithServer(
	api: ApiClient,
	cwd: string,
	pids: string,
): Promise<{ id: string; started: number[] }> {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const id = created.body.session.id;
	const before = pidsIn(pids).length;
	const prompt = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: 'mcp__echo__echo {"text":"hi"}' });
	assert.equal(prompt.status, 202, JSON.stringify(prompt.body));
	let text = "";
	const deadline = Date.now() + 30_000;
	for (;;) {
		const rows = (await api.call<{ rows: { kind: string; text?: string }[] }>("GET", `/api/pi/sessions/${id}`)).body
			.rows;
		text = rows
			.filter((r) => r.kind === "tool_result")
			.map((r) => r.text)
			.join("\n");
		if (text.includes("echo: hi")) break;
		if (Date.now() > deadline) throw new Error(`no echo answer: ${JSON.stringify(rows)}`);
		await new Promise((done) => setTimeout(done, 100));
	}
	const started = pidsIn(pids).slice(before);
	assert.equal(started.length, 2, "the server and its grandchild started");
	assert.ok(started.every(isAlive), "both run while the session is open");
	return { id, started };
}

describe("an MCP server and its process group end with their session", () => {
	for (const stubborn of [false, true])
		test(`pier run: the server and its ${stubborn ? "SIGTERM-ignoring " : ""}grandchild are gone when the run ends`, async () => {
			using dir = tempDir();
			const pids = join(dir.path, "pids");
			forkingServerConfig(dir.path, pids, stubborn);
			const run = await runPier(["run", "--no-session", 'mcp__echo__echo {"text":"hi"}'], { agentDir: dir.path });
			assert.equal(run.code, 0, run.stderr);
			assert.match(run.stdout, /echo: hi/);
			const started = pidsIn(pids);
			assert.equal(started.length, 2, "the server and its grandchild started");
			// pi's stdio transport SIGTERMs the group at close; dying takes a moment after that.
			await until("the server and its grandchild to end", () => !started.some(isAlive));
		});

	test("the chamber: deleting a session ends its server and grandchild; SIGTERM of pier serve ends the rest", async () => {
		using dir = tempDir();
		const pids = join(dir.path, "pids");
		// Stubborn grandchildren: only a SIGKILL of the group ends them, so a plain one is covered too.
		forkingServerConfig(dir.path, pids, true);
		const { serve, api } = await servedChamber([], {
			agentDir: dir.path,
			cwd: dir.path,
			stateDir: join(dir.path, "state"),
		});
		try {
			const first = await sessionWithServer(api, dir.path, pids);
			const second = await sessionWithServer(api, dir.path, pids);
			const deleted = await api.call("DELETE", `/api/pi/sessions/${first.id}`);
			assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
			await until("the deleted session's server and grandchild to end", () => !first.started.some(isAlive));
			assert.ok(second.started.every(isAlive), "the other session's server still runs");

			assert.equal(await serve.stop(), 0, serve.output());
			await until("the daemon's last server and grandchild to end", () => !second.started.some(isAlive));
		} finally {
			await serve.stop();
		}
	});
});
