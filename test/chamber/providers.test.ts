/**
 * Models and providers from the browser's API: a key set through it lands in pi's auth.json and unlocks that
 * provider's models, and no response ever carries it; a custom OpenAI-compatible provider added through it
 * answers a prompt; a model without reasoning offers only thinking "off".
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/openai-server.js";
import { tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-chamber-providers-");
const agentDir = join(dir.path, "agent");
const SECRET = "sk-test-do-not-leak-7f3a9c";
let serve: Serve;
let api: ApiClient;
let server: FakeOpenAI;
/** Every body the page's routes answered with, to look for the key in. */
const bodies: string[] = [];

before(async () => {
	mkdirSync(agentDir, { recursive: true });
	server = await startFakeOpenAI();
	serve = await startServe(["--no-examples", "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
		agentDir,
		cwd: dir.path,
	});
	api = new ApiClient(serve.url);
	assert.equal((await api.login("pw")).status, 200);
});
after(async () => {
	await serve?.stop();
	await server?.close();
	dir[Symbol.dispose]();
});

async function call<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
	const reply = await api.call<T>(method, path, body);
	bodies.push(JSON.stringify(reply.body));
	return reply;
}

type Provider = { id: string; credentials: string; models: number; custom: boolean };
type Model = { ref: string; provider: string; reasoning: boolean; thinkingLevels: string[] };

test("a key set through the API lands in auth.json, unlocks the provider's models, and no response carries it", async () => {
	const before = await call<{ providers: Provider[] }>("GET", "/api/pi/providers");
	assert.equal(before.status, 200);
	assert.equal(before.body.providers.find((p) => p.id === "openai")?.credentials, "none");
	assert.ok(
		!(await call<{ models: Model[] }>("GET", "/api/pi/models")).body.models.some((m) => m.provider === "openai"),
	);

	const set = await call("PUT", "/api/pi/providers/openai/key", { apiKey: SECRET });
	assert.equal(set.status, 200, JSON.stringify(set.body));
	assert.equal(set.body.credentials, "auth.json");
	const auth = JSON.parse(readFileSync(join(agentDir, "auth.json"), "utf8")) as Record<string, { key?: string }>;
	assert.equal(auth.openai?.key, SECRET, "pi's own auth.json, where pi reads it");

	const models = await call<{ models: Model[] }>("GET", "/api/pi/models");
	assert.ok(
		models.body.models.some((m) => m.provider === "openai"),
		"the provider's models are offered now",
	);
	const after = await call<{ providers: Provider[] }>("GET", "/api/pi/providers");
	assert.equal(after.body.providers.find((p) => p.id === "openai")?.credentials, "auth.json");
	for (const path of ["/api/pi/sessions", "/api/pi/ui-settings", "/api/pi/grants", "/api/auth/status"])
		await call("GET", path);
	for (const body of bodies) assert.ok(!body.includes(SECRET), `a response carried the key: ${body.slice(0, 200)}`);

	assert.equal((await call("DELETE", "/api/pi/providers/openai/key")).status, 200);
	assert.equal((await call("DELETE", "/api/pi/providers/openai/key")).status, 404);
	assert.ok(
		!(await call<{ models: Model[] }>("GET", "/api/pi/models")).body.models.some((m) => m.provider === "openai"),
	);
	assert.equal((await call("PUT", "/api/pi/providers/openai/key", { apiKey: "" })).status, 400);
	assert.equal((await call("PUT", "/api/pi/providers/openai/key", { apiKey: "x", extra: 1 })).status, 400);
});

test("a custom OpenAI-compatible provider added through the API answers a prompt", async () => {
	const added = await call("POST", "/api/pi/providers", {
		id: "local",
		baseUrl: server.baseUrl,
		api: "openai-completions",
		apiKey: SECRET,
		models: [{ id: "local-model", name: "Local model" }],
	});
	assert.equal(added.status, 201, JSON.stringify(added.body));
	const providers = await call<{ providers: Provider[] }>("GET", "/api/pi/providers");
	assert.deepEqual(
		providers.body.providers.find((p) => p.id === "local"),
		{ id: "local", name: "local", credentials: "models.json", models: 1, custom: true, oauth: false },
	);
	const created = await call<{ session: { id: string } }>("POST", "/api/pi/sessions", { model: "local/local-model" });
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const id = created.body.session.id;
	const stream = api.events(`session=${id}`);
	await stream.waitFor((e) => e.event === "session.snapshot", "the snapshot");
	assert.equal((await call("POST", `/api/pi/sessions/${id}/prompt`, { text: "what is the weather?" })).status, 202);
	await stream.waitFor((e) => e.event === "agent.end", "the answer");
	stream.close();
	assert.ok(server.requests.length > 0, "the custom provider's server was asked");
	assert.equal(server.requests[0]!.headers.authorization, `Bearer ${SECRET}`);
	// Every other route the page calls, with a session that uses the keyed provider.
	for (const path of [
		`/api/pi/sessions/${id}`,
		`/api/pi/sessions/${id}/rows`,
		`/api/pi/extensions?session=${id}`,
		`/api/pi/models?session=${id}`,
		"/api/pi/projects/trust",
		"/api/pi/providers",
		"/api/auth/tokens",
	])
		assert.equal((await call("GET", path)).status, 200, path);
	for (const body of bodies) assert.ok(!body.includes(SECRET), "no response carries the custom provider's key");

	for (const bad of [
		{ id: "Bad Id", baseUrl: server.baseUrl, api: "openai-completions", models: [{ id: "m" }] },
		{ id: "ok", baseUrl: "ftp://x", api: "openai-completions", models: [{ id: "m" }] },
		{ id: "ok", baseUrl: server.baseUrl, api: "carrier-pigeon", models: [{ id: "m" }] },
		{ id: "ok", baseUrl: server.baseUrl, api: "openai-completions", models: [] },
	]) {
		const reply = await call("POST", "/api/pi/providers", bad);
		assert.equal(reply.status, 400, JSON.stringify(reply.body));
	}
	assert.equal(
		(
			await call("POST", "/api/pi/providers", {
				id: "pier",
				baseUrl: server.baseUrl,
				api: "openai-completions",
				models: [{ id: "m" }],
			})
		).status,
		409,
	);
});

test("a model without reasoning offers only thinking off", async () => {
	const models = await call<{ models: Model[] }>("GET", "/api/pi/models");
	const demo = models.body.models.find((m) => m.ref === "pier/demo");
	assert.deepEqual(demo?.thinkingLevels, ["off"]);
});
