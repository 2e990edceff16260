/**
 * Findings 7 and 16 of issue 27: the providers page writes pi's files only in a form pi accepts. A request pi
 * would refuse (in pi 1.6, a model with an empty name; in 0.74, a custom provider without an apiKey) used to be written to models.json first and
 * refused after: every custom provider then vanished from the CLI and every later request failed too. A baseUrl
 * with a newline, and a key that is not valid Unicode or holds control characters, were stored as sent.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-hostile-provider-files-");
const agentDir = join(dir.path, "agent");
const modelsFile = join(agentDir, "models.json");
/** The chamber's one error shape. */
type Err = { error: { code: string; message: string } };
let serve: Serve;
let api: ApiClient;

const mine = {
	providers: {
		mine: {
			baseUrl: "http://127.0.0.1:9/v1",
			api: "openai-completions",
			apiKey: "sk-mine",
			models: [{ id: "mine-model" }],
		},
	},
};

before(async () => {
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(modelsFile, `${JSON.stringify(mine, null, 2)}\n`);
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

const provider = (id: string, extra: Record<string, unknown> = {}) => ({
	id,
	baseUrl: "http://127.0.0.1:9/v1",
	api: "openai-completions",
	models: [{ id: `${id}-model` }],
	...extra,
});

/** `pier --list-models`: the CLI's view of pi's files. */
async function cliModels(): Promise<string> {
	const listed = await runPier(["--list-models"], { agentDir, cwd: dir.path });
	assert.equal(listed.code, 0, listed.stderr);
	return listed.stdout;
}

test("a request pi would refuse leaves models.json byte-identical, and the next valid one succeeds", async () => {
	const original = readFileSync(modelsFile);
	const refused = await api.call<Err>(
		"POST",
		"/api/pi/providers",
		provider("noname", { models: [{ id: "x", name: "" }] }),
	);
	assert.equal(refused.status, 422, JSON.stringify(refused.body));
	assert.match(refused.body.error.message, /models\.0\.name/, "pi's own complaint is passed on");
	assert.ok(readFileSync(modelsFile).equals(original), "models.json is untouched");
	assert.deepEqual(
		readdirSync(agentDir).filter((name) => name.startsWith("models.json.")),
		[],
		"no candidate file is left beside it",
	);
	assert.match(await cliModels(), /mine-model/, "the CLI still lists the custom provider");

	const added = await api.call("POST", "/api/pi/providers", provider("later", { apiKey: "sk-later" }));
	assert.equal(added.status, 201, JSON.stringify(added.body));
	const listed = await cliModels();
	assert.match(listed, /mine-model/);
	assert.match(listed, /later-model/);
});

test("a models.json pi already refuses is named, not built upon", async () => {
	const broken = `${JSON.stringify({ providers: { hand: { baseUrl: "http://x", api: "openai-completions", models: [{ id: "h", name: "" }] } } })}\n`;
	const saved = readFileSync(modelsFile);
	writeFileSync(modelsFile, broken);
	try {
		const reply = await api.call<Err>("POST", "/api/pi/providers", provider("fine", { apiKey: "sk-fine" }));
		assert.equal(reply.status, 409, JSON.stringify(reply.body));
		assert.match(reply.body.error.message, /hand\.models\.0\.name/);
		assert.equal(readFileSync(modelsFile, "utf8"), broken);
	} finally {
		writeFileSync(modelsFile, saved);
	}
});

test("a baseUrl with a newline and keys that are not clean Unicode text are refused, naming the field", async () => {
	const models = readFileSync(modelsFile);
	const cases: Array<[string, Record<string, unknown>, RegExp]> = [
		["baseUrl newline", provider("nl", { apiKey: "k", baseUrl: "http://127.0.0.1:9/v1\nX-Injected: 1" }), /^baseUrl:/],
		["baseUrl carriage return", provider("cr", { apiKey: "k", baseUrl: "http://a/\r" }), /^baseUrl:/],
		["baseUrl space", provider("sp", { apiKey: "k", baseUrl: "http://a/ b" }), /^baseUrl:/],
		["lone surrogate key", provider("ls", { apiKey: "sk-\ud800" }), /^apiKey:.*surrogate/],
		["control character key", provider("cc", { apiKey: "sk-\u0007x" }), /^apiKey:.*U\+0007/],
		["newline key", provider("nk", { apiKey: "sk-a\nb" }), /^apiKey:.*U\+000A/],
		["model id newline", provider("mi", { apiKey: "k", models: [{ id: "a\nb" }] }), /^models\/0\/id:/],
	];
	for (const [what, body, message] of cases) {
		const reply = await api.call<Err>("POST", "/api/pi/providers", body);
		assert.equal(reply.status, 400, `${what}: ${JSON.stringify(reply.body)}`);
		assert.match(reply.body.error.message, message, what);
	}
	assert.ok(readFileSync(modelsFile).equals(models), "models.json is untouched");

	for (const key of ["sk-\udc00", "sk-\u0000", "sk-\u009b[2J"]) {
		const reply = await api.call<Err>("PUT", "/api/pi/providers/openai/key", { apiKey: key });
		assert.equal(reply.status, 400, JSON.stringify(reply.body));
		assert.match(reply.body.error.message, /^apiKey:/);
	}
	// Bytes that are not UTF-8 in the raw body: they decode to U+FFFD, which no key holds.
	const raw = Buffer.concat([Buffer.from('{"apiKey":"sk-'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
	const response = await fetch(new URL("/api/pi/providers/openai/key", serve.url), {
		method: "PUT",
		headers: api.headers({ "content-type": "application/json" }),
		body: raw,
	});
	assert.equal(response.status, 400, await response.clone().text());
	assert.match(((await response.json()) as Err).error.message, /^apiKey:.*U\+FFFD/);
	const auth = join(agentDir, "auth.json");
	const keys = (existsSync(auth) ? JSON.parse(readFileSync(auth, "utf8")) : {}) as Record<string, unknown>;
	assert.equal(keys.openai, undefined, "no refused key reached auth.json");
});
