/**
 * `pier pair`: a signed-out user is never locked out. The command mints a one-time link for the chamber of a
 * state directory, running (it prints the daemon's addresses) or not yet started (the link waits for it).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { ApiClient, startServe } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

test("sign out, then sign in again with a link from pier pair; the link works once", async (t) => {
	using dir = tempDir("pier-pair-");
	const stateDir = join(dir.path, "state");
	const serve = await startServe(["--state-dir", stateDir], { agentDir: join(dir.path, "agent"), cwd: dir.path });
	t.after(() => serve.stop());
	// The first line, printed before the chamber's modules load; the address follows once the port is bound.
	const starting = serve.output().search(/^pier chamber: starting on 127\.0\.0\.1:a free port$/m);
	assert.ok(starting >= 0, `a starting line: ${serve.output()}`);
	assert.ok(starting < serve.output().indexOf(`pier chamber: ${serve.url}`), "before the address");
	// The banner: the model new sessions get, what loads (by kind), how to stop, how to get a link later.
	assert.match(serve.output(), /model for new sessions: pier\/demo · extensions: 1 typescript, 1 quickjs, 1 process/);
	// Run as `node …/bin/pier.js serve` (no pier on PATH), the banner names that command, not a `pier` that is absent.
	assert.match(serve.output(), /stop with Ctrl\+C .*: node \S*bin\/pier\.js pair\n/);
	const api = new ApiClient(serve.url);
	await api.pair(serve.pairingUrl);
	assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
	assert.equal((await api.call("POST", "/api/auth/logout", {})).status, 200);
	assert.equal((await api.call("GET", "/api/pi/sessions")).status, 401, "signed out");

	const paired = await runPier(["pair", "--state-dir", stateDir], { agentDir: join(dir.path, "agent"), cwd: dir.path });
	assert.equal(paired.code, 0, paired.stderr);
	const link = paired.stdout.trim().split("\n")[0]!;
	assert.ok(link.startsWith(serve.url), `the link points at the running daemon: ${link}`);
	const fresh = new ApiClient(serve.url);
	await fresh.pair(link);
	assert.equal((await fresh.call("GET", "/api/pi/sessions")).status, 200, "signed in with the new link");
	const again = new ApiClient(serve.url);
	await assert.rejects(again.pair(link), /pairing failed/, "one use");
});

test("a link minted while no daemon runs works when it starts; bad --minutes is refused", async (t) => {
	using dir = tempDir("pier-pair-later-");
	const stateDir = join(dir.path, "state");
	const agentDir = join(dir.path, "agent");
	const paired = await runPier(["pair", "--state-dir", stateDir, "--minutes", "5"], { agentDir, cwd: dir.path });
	assert.equal(paired.code, 0, paired.stderr);
	assert.match(paired.stderr, /no chamber runs on .* now/);
	const token = new URL(paired.stdout.trim()).hash;
	const serve = await startServe(["--state-dir", stateDir], { agentDir, cwd: dir.path });
	t.after(() => serve.stop());
	const api = new ApiClient(serve.url);
	await api.pair(`${serve.url}${token}`);
	assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
	for (const minutes of ["0", "1441", "x"]) {
		const bad = await runPier(["pair", "--state-dir", stateDir, "--minutes", minutes], { agentDir, cwd: dir.path });
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /--minutes must be a whole number from 1 to 1440/);
	}
});
