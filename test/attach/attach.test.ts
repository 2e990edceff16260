/**
 * `pier attach` in a real tmux terminal against a real `pier serve`: the transcript, a prompt typed there seen over
 * the chamber's API, a dialog answered in the chamber that closes in the terminal, detaching while the agent works,
 * and the credential attach signs in with (listed while attached, gone after, useless once revoked).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { type ApiClient, type Envelope, servedChamber } from "../helpers/chamber.js";
import { startAttach } from "../helpers/attach.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { startPier, tmux, type, waitForScreen, waitForScreenWithout } from "../helpers/tmux.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/attach/attach-ext.ts");

type Row = { kind: string; text?: string; toolName?: string };
const row = (e: Envelope) => (e.event === "transcript.row" ? (e.payload.row as Row) : undefined);

async function credentialIds(api: ApiClient): Promise<string[]> {
	const reply = await api.call<{ credentials: { id: string }[] }>("GET", "/api/auth/credentials");
	return reply.body.credentials.map((c) => c.id);
}

test("pier attach follows a chamber session, acts through the chamber and detaches leaving the run going", async (t) => {
	using dir = tempDir();
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	// The default state directory, so attach finds the daemon as a user's plain `pier attach` would.
	const stateDir = join(agentDir, "pier-chamber");
	mkdirSync(agentDir);
	mkdirSync(project);
	const { serve, api } = await servedChamber(["--no-examples", "-e", FIXTURE], { agentDir, cwd: project, stateDir });
	t.after(() => serve.stop());
	const { id, stream } = await api.newSession();
	t.after(() => stream.close());
	assert.equal(
		(await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello from the chamber" })).status,
		202,
	);
	await stream.waitFor((e) => row(e)?.kind === "assistant", "the demo model's answer");
	const before = await credentialIds(api);

	const name = startAttach(t, agentDir, project, []);
	let screen = await waitForScreen(name, /fixture widget line/);
	assert.match(screen, /hello from the chamber/);
	assert.match(screen, /does not understand "hello from the chamber"/);
	assert.match(screen, /fixture status ready/);
	// attach signed in through the state directory: one more credential, listed (and so revocable) in the chamber.
	assert.equal((await credentialIds(api)).filter((c) => !before.includes(c)).length, 1);
	assert.equal(statSync(stateDir).mode & 0o777, 0o700);
	assert.equal(statSync(join(stateDir, "pairing-inbox.json")).mode & 0o777, 0o600);

	type(name, "typed in the terminal");
	await stream.waitFor((e) => row(e)?.kind === "user" && row(e)?.text === "typed in the terminal", "the typed prompt");
	await waitForScreen(name, /does not understand "typed in the terminal"/);

	type(name, "/attach-confirm");
	const dialog = await stream.waitFor((e) => e.event === "extension.dialog", "the confirm");
	await waitForScreen(name, /Ship it\?/);
	const answered = await api.call("POST", `/api/pi/sessions/${id}/dialogs/${dialog.payload.requestId}`, {
		confirmed: true,
	});
	assert.equal(answered.status, 200);
	screen = await waitForScreenWithout(name, /Ship it\?/);
	await waitForScreen(name, /confirm said yes/);
	// And the other way: answered in the terminal (No), the chamber sees it answered.
	type(name, "/attach-confirm");
	const second = await stream.waitFor(
		(e) => e.event === "extension.dialog" && e.payload.requestId !== dialog.payload.requestId,
		"the second confirm",
	);
	await waitForScreen(name, /Ship it\?/);
	tmux("send-keys", "-t", name, "Down");
	tmux("send-keys", "-t", name, "Enter");
	const dismissed = await stream.waitFor(
		(e) => e.event === "extension.dialog.dismiss" && e.payload.requestId === second.payload.requestId,
		"the second confirm's end",
	);
	assert.equal(dismissed.payload.reason, "answered");
	await waitForScreen(name, /confirm said no/);

	// Esc aborts the run the chamber is doing.
	type(name, `hold ${JSON.stringify({ file: join(dir.path, "never") })}`);
	const held = await stream.waitFor((e) => e.event === "tool.start" && e.payload.toolName === "hold", "hold runs");
	await waitForScreen(name, /Working…/);
	tmux("send-keys", "-t", name, "Escape");
	const aborted = await stream.waitFor(
		(e) => e.seq > held.seq && row(e)?.kind === "tool_result" && row(e)?.text === "aborted",
		"the aborted tool",
	);
	await stream.waitFor((e) => e.seq > aborted.seq && e.event === "agent.end", "the aborted run's end");

	// A run the agent is in the middle of when the terminal detaches.
	const release = join(dir.path, "release");
	type(name, `hold ${JSON.stringify({ file: release })}`);
	const started = await stream.waitFor(
		(e) => e.seq > aborted.seq && e.event === "tool.start" && e.payload.toolName === "hold",
		"hold runs again",
	);
	await waitForScreen(name, /Working…/);
	type(name, "steered from the terminal");
	await stream.waitFor(
		(e) => e.event === "session.queue" && (e.payload.steering as string[]).includes("steered from the terminal"),
		"the steer queued",
	);
	tmux("send-keys", "-t", name, "C-d");
	await waitForScreen(name, /Detached\. The session keeps running in the chamber: http:\/\/127\.0\.0\.1:\d+\/\?s=/);
	await waitForScreen(name, /\[attach exited 0\]/);
	const view = await api.call<{ streaming: boolean }>("GET", `/api/pi/sessions/${id}`);
	assert.equal(view.body.streaming, true, "the run stopped when the terminal detached");
	assert.deepEqual((await credentialIds(api)).sort(), [...before].sort(), "detaching did not sign the terminal out");
	writeFileSync(release, "");
	const result = await stream.waitFor(
		(e) => e.seq > started.seq && row(e)?.kind === "tool_result" && row(e)?.text === "released",
		"the held tool's result",
	);
	await stream.waitFor((e) => e.seq > result.seq && e.event === "agent.end", "the run's end");

	// Revoked in the chamber, attach's credential does nothing more: the next action closes the terminal.
	const again = startAttach(t, agentDir, project, ["--state-dir", stateDir, id]);
	await waitForScreen(again, /typed in the terminal/);
	const added = (await credentialIds(api)).filter((c) => !before.includes(c));
	assert.equal(added.length, 1);
	assert.equal((await api.call("DELETE", `/api/auth/credentials/${added[0]}`)).status, 200);
	type(again, "after the revocation");
	await waitForScreen(again, /the chamber refused this terminal/);
	await waitForScreen(again, /\[attach exited 1\]/);
	const rows = (await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`)).body.rows;
	assert.equal(rows.filter((r) => r.text === "after the revocation").length, 0);

	// Another chamber by address, with a device token: the same session, and the token outlives the detach.
	const minted = await api.call<{ id: string; token: string }>("POST", "/api/auth/tokens", { name: "attach test" });
	const remote = startAttach(t, agentDir, project, ["--url", serve.url, "--token", minted.body.token, id]);
	await waitForScreen(remote, /typed in the terminal/);
	tmux("send-keys", "-t", remote, "C-d");
	await waitForScreen(remote, /\[attach exited 0\]/);
	assert.ok((await credentialIds(api)).includes(minted.body.id));

	// The other way: `/chamber` in pier's own terminal names the session's address and moves the session there.
	const own = startPier(t, agentDir, FIXTURE, project);
	await waitForScreen(own, /demo\s*$/m);
	type(own, "written in pier's terminal");
	await waitForScreen(own, /does not understand "written in pier's terminal"/);
	type(own, "/chamber");
	screen = await waitForScreen(own, /Open this session in the chamber\?/);
	const ownId = /\?s=([0-9a-f-]+)/.exec(screen.replace(/\s+/g, ""))?.[1];
	assert.ok(ownId, `no chamber address on the screen:\n${screen}`);
	assert.equal((await api.call("POST", `/api/pi/sessions/${ownId}/open`, {})).status, 409, "the terminal holds it");
	tmux("send-keys", "-t", own, "Enter");
	for (let opened = 0; opened !== 200; ) {
		opened = (await api.call("POST", `/api/pi/sessions/${ownId}/open`, {})).status;
		assert.ok(opened === 200 || opened === 409, `open answered ${opened}`);
		if (opened === 409) await new Promise((done) => setTimeout(done, 200));
	}
	const moved = (await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${ownId}`)).body.rows;
	assert.ok(moved.some((r) => r.kind === "user" && r.text === "written in pier's terminal"));
});

test("pier attach sends its credentials only where they belong", async () => {
	using dir = tempDir();
	// A device token never crosses the network in the clear.
	const plain = await runPier(["attach", "--url", "http://chamber.example:7777/", "--token", "pier_dt_secret"], {
		agentDir: dir.path,
	});
	assert.equal(plain.code, 2);
	assert.match(plain.stderr, /refusing to send a device token over plain http to chamber\.example:7777/);
	// A state directory whose daemon record names no loopback address: no pairing token is minted for it.
	const stateDir = join(dir.path, "state");
	mkdirSync(stateDir);
	writeFileSync(
		join(stateDir, "daemon.json"),
		JSON.stringify({ pid: process.pid, urls: ["http://10.1.2.3:7777/"], startedAt: new Date().toISOString() }),
	);
	const wide = await runPier(["attach", "--state-dir", stateDir], { agentDir: dir.path });
	assert.equal(wide.code, 2);
	assert.match(wide.stderr, /records no loopback address \(http:\/\/10\.1\.2\.3:7777\/\)/);
	assert.equal(existsSync(join(stateDir, "pairing-inbox.json")), false);
	// A record left by a daemon that is gone: nothing minted for whatever now listens there.
	const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
	writeFileSync(
		join(stateDir, "daemon.json"),
		JSON.stringify({ pid: gone, urls: ["http://127.0.0.1:9/"], startedAt: new Date().toISOString() }),
	);
	const stale = await runPier(["attach", "--state-dir", stateDir], { agentDir: dir.path });
	assert.equal(stale.code, 2);
	assert.match(stale.stderr, /no chamber runs on /);
	assert.equal(existsSync(join(stateDir, "pairing-inbox.json")), false);
	// No daemon at all: said so, nothing minted.
	const none = await runPier(["attach", "--state-dir", join(dir.path, "nothing")], { agentDir: dir.path });
	assert.equal(none.code, 2);
	assert.match(none.stderr, /no chamber runs on .*nothing: start one with `pier serve`/);
	assert.equal(existsSync(join(dir.path, "nothing", "pairing-inbox.json")), false);
});
