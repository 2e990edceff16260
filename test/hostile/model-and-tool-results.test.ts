/**
 * Two low findings of issue 10. Decision 14: the invocation snapshot carried the model as pi holds it, so a
 * base URL with a user, password or key in its query reached every extension (and headers would have);
 * now the model arrives without headers and without the URL's credentials. And a protocol tool's result of
 * the wrong shape was accepted (a bare value became text); now it is an error naming extension and tool.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const PROBE = join(REPO_ROOT, "test", "fixtures", "quickjs", "model-probe");
const MODELS = {
	providers: {
		secretive: {
			baseUrl: "https://user:pw@llm.example/v1?key=QUERYSECRET",
			// pier's offline demo API, so the test needs no network; the credentials are what matters.
			api: "pier-demo",
			apiKey: "KEYSECRET",
			headers: { "X-Secret": "HEADERSECRET" },
			models: [{ id: "m1", name: "M1", contextWindow: 1000, maxTokens: 100, headers: { "X-M": "MODELHEADERSECRET" } }],
		},
	},
};
const SECRETS = ["KEYSECRET", "HEADERSECRET", "MODELHEADERSECRET", "QUERYSECRET", "pw@"];

describe("what an extension sees of the model (decision 14)", () => {
	test("no headers, no key, no credentials in the base URL", async () => {
		using agent = tempDir();
		writeFileSync(join(agent.path, "models.json"), JSON.stringify(MODELS));
		const result = await runPier(["run", "--no-session", "--model", "secretive/m1", "-e", PROBE, "model_probe {}"], {
			agentDir: agent.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const seen = /says: "(.*)"\.$/.exec(result.stdout.trim())?.[1];
		assert.ok(seen, result.stdout);
		const model = JSON.parse(seen) as Record<string, unknown>;
		assert.equal(model.provider, "secretive");
		assert.equal(model.id, "m1");
		assert.equal(model.headers, null);
		assert.equal(model.baseUrl, "https://llm.example/v1");
		for (const secret of SECRETS) assert.equal(seen.includes(secret), false, `${secret} reached the extension`);
	});

	test("before_provider_headers shows header names, never their values", async () => {
		using agent = tempDir();
		writeFileSync(join(agent.path, "models.json"), JSON.stringify(MODELS));
		const result = await runPier(["run", "--no-session", "--model", "secretive/m1", "-e", PROBE, "headers_probe {}"], {
			agentDir: agent.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const seen = /says: "(.*)"\.$/.exec(result.stdout.trim())?.[1];
		assert.ok(seen, result.stdout);
		assert.deepEqual(JSON.parse(seen), { "X-Secret": "[redacted]", "X-M": "[redacted]" });
		for (const secret of SECRETS) assert.equal(seen.includes(secret), false, `${secret} reached the extension`);
	});
});

describe("protocol tool results of the wrong shape", () => {
	for (const [tool, problem] of [
		["bare_string", "/ must be object"],
		["bad_block", "/content/0"],
		["content_not_array", "/content must be array"],
	] as const) {
		test(`${tool} is an error naming the extension and the tool`, async () => {
			using agent = tempDir();
			const result = await runPier(["run", "--no-session", "-e", PROBE, `${tool} {}`], { agentDir: agent.path });
			assert.equal(result.code, 0, result.stderr);
			assert.ok(
				result.stdout.includes(
					`the ${tool} tool failed: "extension model-probe tool "${tool}" returned an invalid result`,
				),
				result.stdout,
			);
			assert.ok(result.stdout.includes(problem), result.stdout);
		});
	}
});
