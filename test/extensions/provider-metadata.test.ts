/**
 * `provider_metadata` in pi's model registry (bridge/provider-metadata.ts): a process extension describes an
 * OpenAI-compatible endpoint, and `pier run --model <id>/<model>` talks HTTP to it with pi's own implementation of
 * the API; the user's key wins over the placeholder; describing a provider that exists already is refused.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { metadataModels, metadataProblem } from "../../src/extensions/bridge/provider-metadata.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/openai-server.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

/** Process extensions get only the environment the global settings grant them. */
const grantEnvironment = (agentDir: string, environment: Record<string, string>) =>
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ extensionHost: { environment } }));

describe("provider_metadata through pier run", () => {
	let server: FakeOpenAI;
	before(async () => {
		server = await startFakeOpenAI({ reply: "text" });
	});
	after(() => server.close());

	test("the described provider's model answers over HTTP; the user's --api-key is the one sent", async () => {
		using dir = tempDir();
		grantEnvironment(dir.path, { PIER_RAW_PROVIDER_META_URL: server.baseUrl });
		const result = await runPier(["run", "-e", RAW, "--model", "raw-meta/meta-model", "--api-key", "user-key", "hi"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), "A plain answer from the local server.");
		const request = server.requests.at(-1)!;
		assert.equal(request.body.model, "meta-model");
		assert.equal(request.headers.authorization, "Bearer user-key");

		const keyless = await runPier(["run", "-e", RAW, "--model", "raw-meta/meta-model", "hi"], { agentDir: dir.path });
		assert.equal(keyless.code, 0, keyless.stderr);
		assert.equal(server.requests.at(-1)!.headers.authorization, "Bearer pier-provider-metadata-no-key");
	});

	test("describing a provider pi already has is refused with a warning naming it", async () => {
		using dir = tempDir();
		grantEnvironment(dir.path, { PIER_RAW_PROVIDER_VARIANT: "meta-takeover" });
		const result = await runPier(["run", "-e", RAW, "--model", "raw-llm/default", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(
			result.stderr,
			/extension raw-provider provider_metadata not registered: provider "openai" already exists; provider_metadata may only describe a new provider/,
		);
	});
});

describe("provider_metadata checks", () => {
	const base = { id: "acme", api: "openai-completions", baseUrl: "https://api.acme.test/v1", models: [{ id: "m" }] };
	const free = () => false;

	test("each refusal names the provider and what to change", () => {
		assert.equal(metadataProblem(base, free), undefined);
		assert.match(metadataProblem(base, (id) => id === "acme")!, /already exists/);
		assert.match(metadataProblem({ ...base, models: [] }, free)!, /lists no models/);
		assert.match(metadataProblem({ ...base, api: undefined } as never, free)!, /names no api/);
		assert.match(metadataProblem({ ...base, api: "telepathy" }, free)!, /api "telepathy" is not one pi implements/);
		assert.match(metadataProblem({ ...base, api: "pier-extension/x/y" }, free)!, /is not one pi implements/);
		assert.match(metadataProblem({ ...base, baseUrl: "file:///etc" }, free)!, /baseUrl must be an http\(s\) URL/);
		assert.match(metadataProblem({ ...base, baseUrl: undefined } as never, free)!, /baseUrl must be an http\(s\) URL/);
	});

	test("models keep only what describes a model: no headers, no per-model URL or API", () => {
		const [model] = metadataModels({
			...base,
			models: [
				{
					id: "m",
					name: "M",
					headers: { authorization: "x" },
					baseUrl: "https://elsewhere",
					api: "anthropic-messages",
					contextWindow: 9000,
					cost: { input: 1, output: -2 },
					input: ["text", "image", "video"],
				},
			],
		});
		assert.deepEqual(model, {
			id: "m",
			name: "M",
			reasoning: false,
			input: ["text", "image"],
			cost: { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 9000,
			maxTokens: 4096,
		});
		assert.throws(() => metadataModels({ ...base, models: [{ id: "has space" }] }), /models\[0\] needs an id/);
		assert.throws(
			() => metadataModels({ ...base, models: [{ id: "m", maxTokens: 0 }] }),
			/models\[0\]\.maxTokens must be a positive integer/,
		);
	});
});
