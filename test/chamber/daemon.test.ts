/** The daemon in-process: heartbeats, the loopback Host check, and models without any session. */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type RunningChamber, startChamber } from "../../src/chamber/server.js";
import { ApiClient } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-daemon-");
let chamber: RunningChamber;
let api: ApiClient;

before(async () => {
	process.env.PI_CODING_AGENT_DIR = join(dir.path, "agent");
	chamber = await startChamber({
		host: "127.0.0.1",
		port: 0,
		stateDir: join(dir.path, "state"),
		defaultCwd: dir.path,
		heartbeatMs: 50,
	});
	api = new ApiClient(chamber.url);
	api.bearer = chamber.auth.createDeviceToken("test").token;
});

after(async () => {
	await chamber?.close();
	dir[Symbol.dispose]();
});

test("a connected client gets heartbeats carrying the current sequence, never retained", async () => {
	const stream = api.events("");
	const first = await stream.waitFor((e) => e.event === "heartbeat", "a heartbeat");
	await stream.waitFor((e) => e.event === "heartbeat" && e !== first, "a second heartbeat");
	assert.equal(first.seq, chamber.chamber.events.latest);
	assert.deepEqual(first.payload, {});
	stream.close();
	// Heartbeats are not events of the stream: a client resuming from before them gets nothing to replay.
	const resumed = api.events("", chamber.chamber.events.latest);
	const next = await resumed.waitFor(() => true, "the next frame");
	assert.equal(next.event, "heartbeat");
	resumed.close();
});

test("on loopback, a request addressed to another host name is refused (DNS rebinding)", async () => {
	const status = await new Promise<number>((resolve, reject) => {
		const url = new URL("/api/auth/status", chamber.url);
		const req = request(url, { headers: { host: `rebound.example:${url.port}` } }, (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.on("error", reject);
		req.end();
	});
	assert.equal(status, 403);
	const local = await fetch(new URL("/api/auth/status", chamber.url.replace("127.0.0.1", "localhost")));
	assert.equal(local.status, 200);
});

test("models are listed without starting a session", async () => {
	const models = await api.call<{ models: { ref: string }[] }>("GET", "/api/pi/models");
	assert.ok(models.body.models.some((m) => m.ref === "pier/demo"));
	assert.deepEqual((await api.call<{ sessions: unknown[] }>("GET", "/api/pi/sessions")).body.sessions, []);
});

test("an idle session is closed only when nothing would be lost, and reopens on demand", async () => {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	const id = created.body.session.id;
	assert.deepEqual(await chamber.chamber.closeIdle(0), [], "no answer yet, so no file: closing would lose it");

	const stream = api.events(`session=${id}`);
	await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
	await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "the answer");
	await new Promise((r) => setTimeout(r, 5));
	assert.deepEqual(await chamber.chamber.closeIdle(0), [], "a connected client keeps it open");
	stream.close();
	for (let i = 0; i < 100 && chamber.chamber.liveSession(id)?.channel.clientCount; i++) {
		await new Promise((r) => setTimeout(r, 10));
	}
	assert.deepEqual(await chamber.chamber.closeIdle(60_000), [], "not idle long enough");
	assert.deepEqual(await chamber.chamber.closeIdle(0), [id]);
	assert.equal(chamber.chamber.liveSession(id), undefined);

	const fromFile = await api.call<{ session: { live: boolean }; rows: { kind: string }[] }>(
		"GET",
		`/api/pi/sessions/${id}`,
	);
	assert.equal(fromFile.body.session.live, false);
	assert.deepEqual(
		fromFile.body.rows.map((r) => r.kind),
		["user", "assistant"],
	);
	const reopened = api.events(`session=${id}`, 0);
	await reopened.waitFor((e) => e.event === "session.commands" || e.event === "session.snapshot", "the session again");
	assert.ok(chamber.chamber.liveSession(id), "the stream started it again");
	reopened.close();
});

test("the web app's files: the app for client routes, 404 for unknown assets, nothing outside the folder", async () => {
	const get = (path: string) => fetch(new URL(path, chamber.url));
	const index = await get("/some/client/route");
	assert.equal(index.status, 200);
	assert.match(index.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
	assert.match(await index.text(), /<div id="app"|<!doctype html>/i);
	assert.equal((await get("/assets/missing-file.js")).status, 404);
	assert.equal((await get("/%E0%A4%A")).status, 400);
	const traversal = await get("/..%2f..%2fpackage.json");
	assert.ok(!(await traversal.text()).includes('"name": "pier"'), "no file outside the web folder");
});

test("the event stream of an unknown session is a JSON 404, like every other route", async () => {
	const reply = await fetch(new URL("/api/pi/events?session=no-such-session", chamber.url), {
		headers: { authorization: `Bearer ${api.bearer}` },
	});
	assert.equal(reply.status, 404);
	assert.equal(((await reply.json()) as { error: { code: string } }).error.code, "not_found");
});

test("a session that is not running is deleted from its file without being started", async () => {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	const id = created.body.session.id;
	const stream = api.events(`session=${id}`);
	await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
	await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "the answer");
	stream.close();
	for (let i = 0; i < 100 && chamber.chamber.liveSession(id)?.channel.clientCount; i++) {
		await new Promise((r) => setTimeout(r, 10));
	}
	const file = chamber.chamber.liveSession(id)!.file!;
	assert.ok((await chamber.chamber.closeIdle(0)).includes(id));

	const opened: string[] = [];
	const original = chamber.chamber.get.bind(chamber.chamber);
	chamber.chamber.get = (which: string) => {
		opened.push(which);
		return original(which);
	};
	try {
		assert.equal((await api.call("DELETE", `/api/pi/sessions/${id}`)).status, 200);
	} finally {
		chamber.chamber.get = original;
	}
	assert.deepEqual(opened, [], "the session was not opened");
	assert.equal(chamber.chamber.liveSession(id), undefined);
	assert.equal(existsSync(file), false, "its file is gone");
	assert.equal((await api.call("DELETE", `/api/pi/sessions/${id}`)).status, 404);
});
