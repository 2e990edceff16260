/**
 * Protocol providers in the chamber: a running session's model list (the picker's source) offers the models a
 * Node kit process extension provides, the session switches to one, and its answer streams into the transcript.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const KIT_PROVIDER = join(REPO_ROOT, "test", "fixtures", "process", "kit-provider");

const dir = tempDir("pier-provider-chamber-");
let serve: Serve;
let api: ApiClient;

before(async () => {
	serve = await startServe(["-e", KIT_PROVIDER, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
		agentDir: join(dir.path, "agent"),
		cwd: dir.path,
	});
	api = new ApiClient(serve.url);
	assert.equal((await api.login("pw")).status, 200);
});
after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

test("a session's model list offers the extension's models; the session answers with one", async () => {
	const { id, stream } = await api.newSession();
	const listed = await api.call<{ models: { ref: string; name: string; provider: string }[] }>(
		"GET",
		`/api/pi/models?session=${id}`,
	);
	assert.equal(listed.status, 200);
	const refs = listed.body.models.map((m) => m.ref);
	for (const ref of ["pier/demo", "echo-llm/small", "echo-llm/large", "any-llm/default"])
		assert.ok(refs.includes(ref), ref);
	assert.deepEqual(
		listed.body.models.find((m) => m.ref === "echo-llm/small"),
		{ ref: "echo-llm/small", name: "Echo small", provider: "echo-llm", reasoning: false },
	);
	const daemonWide = await api.call<{ models: { ref: string }[] }>("GET", "/api/pi/models");
	assert.ok(!daemonWide.body.models.some((m) => m.ref === "echo-llm/small"), "no session, no extension models");
	const unknown = await api.call<{ models: { ref: string }[] }>("GET", "/api/pi/models?session=nope");
	assert.equal(unknown.status, 200, "an unknown session falls back to the daemon's list");

	assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "echo-llm/small" })).status, 200);
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello chamber" })).status, 202);
	const row = await stream.waitFor(
		(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
		"the assistant row",
	);
	assert.equal((row.payload.row as { text: string }).text, "echo-llm/small heard: hello chamber");
	stream.close();
});
