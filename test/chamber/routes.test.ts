/**
 * The chamber's API in Hono's idiom, called with `app.request()` (no socket): bodies are validated by
 * middleware from the wire schemas before any handler runs, and domain errors come back as their statuses,
 * all in the one error shape.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chamberApp } from "../../src/chamber/server.js";
import { tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-routes-");
let built: Awaited<ReturnType<typeof chamberApp>>;
let token: string;
const saved = process.env.PI_CODING_AGENT_DIR;

before(async () => {
	process.env.PI_CODING_AGENT_DIR = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(project, { recursive: true });
	built = await chamberApp({ stateDir: join(dir.path, "state"), defaultCwd: project, heartbeatMs: 3_600_000 });
	token = built.auth.createDeviceToken("routes").token;
});
after(async () => {
	await built.close();
	if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = saved;
	dir[Symbol.dispose]();
});

async function call(method: string, path: string, body?: string, contentType = "application/json") {
	const res = await built.app.request(`/api/pi${path}`, {
		method,
		headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": contentType } : {}) },
		...(body !== undefined ? { body } : {}),
	});
	return {
		status: res.status,
		body: (await res.json()) as { error?: { code: string; message: string } } & Record<string, unknown>,
	};
}

describe("request bodies, validated at the boundary", () => {
	test("a body that is not JSON is a 400; one not sent as JSON is a 415", async () => {
		const res = await call("POST", "/sessions", "{not json");
		assert.equal(res.status, 400);
		assert.deepEqual(res.body.error, { code: "bad_request", message: "the body must be JSON" });
		for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
			const plain = await call("POST", "/sessions", "{}", type);
			assert.equal(plain.status, 415, type);
			assert.match(plain.body.error!.message, /Content-Type must be application\/json/);
		}
	});

	test("a body of the wrong shape is a 400 naming the field, before the handler acts", async () => {
		const res = await call("POST", "/sessions", JSON.stringify({ cwd: 42 }));
		assert.equal(res.status, 400);
		assert.equal(res.body.error?.code, "bad_request");
		assert.match(res.body.error!.message, /^\/cwd: /);
		const listed = await call("GET", "/sessions");
		assert.deepEqual(listed.body.sessions, [], "no session was made");

		const missing = await call("PUT", "/ui-settings", JSON.stringify({}));
		assert.equal(missing.status, 400);
		assert.match(missing.body.error!.message, /^body: .*triggers/);
		const made = await call("POST", "/sessions", "{}");
		assert.equal(made.status, 201, "and the same route with a good body acts");
	});

	test("the shapes of the sub-APIs carry a hint of the whole body", async () => {
		const key = await call("PUT", "/providers/openai/key", JSON.stringify({ apiKey: "" }));
		assert.equal(key.status, 400);
		assert.match(key.body.error!.message, /^\/apiKey: .*\(want \{apiKey: a non-empty string\}\)$/);
		const grants = await call("PUT", "/grants/some-ext", JSON.stringify({ grants: "run" }));
		assert.equal(grants.status, 400);
		assert.match(grants.body.error!.message, /^\/grants: .*\(want \{"grants":\[/);
		const unknown = await call("PUT", "/grants/some-ext", JSON.stringify({ grants: ["exec"] }));
		assert.match(unknown.body.error!.message, /unknown grant "exec" \(known grants: run, write, read, net\)/);
	});
});

describe("domain errors, mapped to statuses", () => {
	test("an unknown session is a 404 for every verb", async () => {
		for (const [method, path, body] of [
			["GET", "/sessions/nope", undefined],
			["POST", "/sessions/nope/prompt", JSON.stringify({ text: "hi" })],
			["PATCH", "/sessions/nope", JSON.stringify({ name: "x" })],
		] as const) {
			const res = await call(method, path, body);
			assert.equal(res.status, 404, `${method} ${path}`);
			assert.equal(res.body.error?.code, "not_found");
		}
	});

	test("a cwd that is no directory is the client's error, named", async () => {
		const res = await call("POST", "/sessions", JSON.stringify({ cwd: "/no/such/dir" }));
		assert.equal(res.status, 422);
		assert.match(res.body.error!.message, /\/no\/such\/dir is not a directory/);
	});

	test("without a credential nothing under /api/pi answers", async () => {
		const res = await built.app.request("/api/pi/sessions");
		assert.equal(res.status, 401);
	});
});
