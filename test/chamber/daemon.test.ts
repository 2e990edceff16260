/** The daemon in-process: heartbeats, the loopback Host check, and models without any session. */
import assert from "node:assert/strict";
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
