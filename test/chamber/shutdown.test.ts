/**
 * `ctx.shutdown()` in the chamber: pi's RPC mode exits on it; the daemon hosts many sessions, so only the
 * session whose extension asked ends (its runtime and extensions), and the daemon and the other sessions go on.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/shutdown-ext.ts");
const dir = tempDir("pier-chamber-shutdown-");
let serve: Serve;
let api: ApiClient;

before(async () => {
	({ serve, api } = await servedChamber(["-e", FIXTURE], {
		agentDir: join(dir.path, "agent"),
		cwd: dir.path,
		stateDir: join(dir.path, "state"),
	}));
});
after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

type Summary = { id: string; live: boolean };
const summaryOf = async (id: string) =>
	(await api.call<{ sessions: Summary[] }>("GET", "/api/pi/sessions")).body.sessions.find((s) => s.id === id);

test("ctx.shutdown() ends that chamber session only; the daemon and the other sessions go on", async () => {
	const ending = await api.newSession();
	const other = await api.newSession();
	// A first answer makes pi write the session file, so the ended session stays listed and viewable.
	assert.equal((await api.call("POST", `/api/pi/sessions/${ending.id}/prompt`, { text: "hello" })).status, 202);
	await ending.stream.waitFor((e) => e.event === "agent.end", "the first answer");
	assert.equal((await summaryOf(ending.id))?.live, true);

	const reply = await api.call("POST", `/api/pi/sessions/${ending.id}/command`, { command: "bye" });
	assert.equal(reply.status, 202, JSON.stringify(reply.body));
	const deadline = Date.now() + 15_000;
	while ((await summaryOf(ending.id))?.live !== false) {
		assert.ok(Date.now() < deadline, "the session that called ctx.shutdown() did not end");
		await new Promise((resolve) => setTimeout(resolve, 100));
	}

	// The ended session is still a file: it is listed and its view reads the file, with what the command wrote.
	const view = await api.call<{ rows: { customType?: string }[] }>("GET", `/api/pi/sessions/${ending.id}`);
	assert.equal(view.status, 200);
	assert.ok(
		view.body.rows.some((r) => r.customType === "t.bye"),
		JSON.stringify(view.body.rows.map((r) => r.customType)),
	);
	// The other session still answers, in the same daemon.
	assert.equal((await summaryOf(other.id))?.live, true);
	assert.equal((await api.call("POST", `/api/pi/sessions/${other.id}/prompt`, { text: "still here?" })).status, 202);
	await other.stream.waitFor(
		(e) => e.event === "transcript.row" && (e.payload.row as { kind?: string } | undefined)?.kind === "assistant",
		"an answer",
	);
	assert.equal(serve.process.exitCode, null, "the daemon is still running");
});
