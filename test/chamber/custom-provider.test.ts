/**
 * A custom provider added with "API key (optional)" left empty: the models.json written is one pi's own loader
 * takes and lists the model as usable (`pier run --list-models`), and a session already running gets the new
 * model without a restart. The answer carries pi's verdict, which the page shows next to its button.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { piRefusal } from "../../src/chamber/models-json.js";
import type { CustomProviderResult } from "../../src/chamber/provider-routes.js";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-custom-provider-");
const agentDir = join(dir.path, "agent");
let serve: Serve;
let api: ApiClient;

before(async () => {
	mkdirSync(agentDir, { recursive: true });
	serve = await startServe(["--no-examples", "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
		agentDir,
		cwd: dir.path,
	});
	api = new ApiClient(serve.url);
	assert.equal((await api.login("pw")).status, 200);
});
after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

const refs = async (query = "") =>
	(await api.call<{ models: { ref: string }[] }>("GET", `/api/pi/models${query}`)).body.models.map((m) => m.ref);

test("an empty API key writes a models.json pi loads, lists the model, and a running session gets it", async () => {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const session = created.body.session.id;
	assert.ok(!(await refs(`?session=${session}`)).includes("keyless/small"));

	const reply = await api.call<CustomProviderResult>("POST", "/api/pi/providers", {
		id: "keyless",
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		models: [{ id: "small" }],
	});
	assert.equal(reply.status, 201, JSON.stringify(reply.body));
	assert.deepEqual(reply.body, {
		provider: "keyless",
		models: 1,
		usable: 1,
		sessionsUpdated: 1,
		placeholderKey: true,
	});

	const file = join(agentDir, "models.json");
	assert.equal(await piRefusal(file), undefined, readFileSync(file, "utf8"));
	const listed = await runPier(["run", "--list-models"], { agentDir, cwd: dir.path });
	assert.equal(listed.code, 0, listed.stderr);
	assert.doesNotMatch(`${listed.stdout}${listed.stderr}`, /Failed to load models\.json|Invalid models\.json/);
	assert.match(listed.stdout, /^keyless\s+small\b/m, listed.stdout);

	assert.ok((await refs(`?session=${session}`)).includes("keyless/small"), "the running session has the model");
	assert.ok((await refs()).includes("keyless/small"), "and so does a new one");
});

test("a key typed in the form is written as given, and no placeholder is reported", async () => {
	const reply = await api.call<CustomProviderResult>("POST", "/api/pi/providers", {
		id: "keyed",
		baseUrl: "http://127.0.0.1:9/v1",
		api: "openai-completions",
		apiKey: "typed-key",
		models: [{ id: "m" }],
	});
	assert.equal(reply.status, 201, JSON.stringify(reply.body));
	assert.equal(reply.body.placeholderKey, false);
	const written = JSON.parse(readFileSync(join(agentDir, "models.json"), "utf8")) as {
		providers: Record<string, { apiKey?: string }>;
	};
	assert.equal(written.providers.keyed?.apiKey, "typed-key");
	assert.equal(written.providers.keyless?.apiKey, "none");
});
