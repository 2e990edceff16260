/**
 * Extension flags in the chamber: `pier serve --name value` gives them to every session (pi's rules), a
 * session created through the API adds its own over them, and an unknown flag is refused by name.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/flag-ext.ts");
const dir = tempDir("pier-chamber-flags-");
let serve: Serve;
let api: ApiClient;

before(async () => {
	({ serve, api } = await servedChamber(["-e", FIXTURE, "--greeting", "hello-all"], {
		agentDir: join(dir.path, "agent"),
		cwd: dir.path,
		stateDir: join(dir.path, "state"),
	}));
});
after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

async function recordedFlags(flags?: Record<string, string | boolean>): Promise<unknown> {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", flags ? { flags } : {});
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const id = created.body.session.id;
	const stream = api.events(`session=${id}`);
	await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "flags" })).status, 202);
	const event = await stream.waitFor(
		(e) => e.event === "transcript.row" && (e.payload.row as { customType?: string })?.customType === "t.flags",
		"the flags entry",
	);
	stream.close();
	return (event.payload.row as { content?: unknown }).content;
}

test("pier serve's extension flags reach every session; a session's own flags win over them", async () => {
	assert.deepEqual(await recordedFlags(), { greeting: "hello-all", loud: null });
	assert.deepEqual(await recordedFlags({ greeting: "hola", loud: true }), { greeting: "hola", loud: true });
});

test("a session's flags are validated by name and count", async () => {
	for (const flags of [
		{ "bad name": true },
		Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, true])),
	]) {
		const reply = await api.call("POST", "/api/pi/sessions", { flags });
		assert.equal(reply.status, 400, JSON.stringify(reply.body));
	}
});

test("a flag no extension registered is pi's Unknown option, shown in that session, which goes on", async () => {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { flags: { nope: true } });
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const id = created.body.session.id;
	const stream = api.events(`session=${id}`);
	const snapshot = await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
	assert.match(JSON.stringify(snapshot.payload), /Unknown option: --nope/);
	stream.close();
});
