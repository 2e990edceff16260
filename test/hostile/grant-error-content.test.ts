/**
 * Finding 17 of issue 27: a grant error quoted the start of whatever file it was pointed at (JSON.parse's
 * message carries it), so `pier grant ~/.ssh/id_ed25519 run` printed the key's first characters. An error
 * names the file and where it breaks, never what it holds.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const SECRET = "sk-live-SECRET-4242";

test("pier grant pointed at files holding a secret names them and never prints the secret", async () => {
	using agent = tempDir();
	using files = tempDir("pier-secrets-");
	const keyFile = join(files.path, "id_ed25519");
	writeFileSync(keyFile, `${SECRET}\n-----more key material-----\n`);
	const jsonKey = join(files.path, "auth.json");
	writeFileSync(jsonKey, JSON.stringify({ openai: { type: "api_key", key: SECRET } }));
	const garbage = join(files.path, "garbage");
	mkdirSync(garbage);
	writeFileSync(join(garbage, "pi-extension.json"), `${SECRET} {`);
	const unterminated = join(files.path, "unterminated");
	mkdirSync(unterminated);
	writeFileSync(join(unterminated, "pi-extension.json"), `{"schemaVersion": 1, "id": "${SECRET}`);
	const midway = join(files.path, "midway");
	mkdirSync(midway);
	writeFileSync(join(midway, "pi-extension.json"), `{"schemaVersion": 1, "id": ${SECRET}}`);

	for (const [target, named] of [
		[keyFile, keyFile],
		[jsonKey, jsonKey],
		[garbage, join(garbage, "pi-extension.json")],
		[unterminated, join(unterminated, "pi-extension.json")],
		[midway, join(midway, "pi-extension.json")],
	] as const) {
		const refused = await runPier(["grant", target, "run"], { agentDir: agent.path });
		assert.equal(refused.code, 1, refused.stderr);
		assert.ok(refused.stderr.includes(named), `the error names ${named}: ${refused.stderr}`);
		assert.ok(!refused.stderr.includes("sk-live"), `the secret is in stderr: ${refused.stderr}`);
		assert.ok(!refused.stdout.includes("sk-live"));
	}
});

test("a settings.json that is not JSON is named without its contents", async () => {
	using agent = tempDir();
	using ext = tempDir("pier-ext-");
	writeFileSync(
		join(ext.path, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id: "fine", runtime: "quickjs", entry: "./index.mjs", capabilities: [] }),
	);
	writeFileSync(join(ext.path, "index.mjs"), "export default function () {}\n");
	const settings = join(agent.path, "settings.json");
	writeFileSync(settings, `{"apiKey": ${SECRET}}`);
	for (const args of [["grant", ext.path, "run"], ["grant"]]) {
		const answer = await runPier(args, { agentDir: agent.path });
		const said = answer.stdout + answer.stderr;
		assert.ok(said.includes(settings), `${args.join(" ")} names ${settings}: ${said}`);
		assert.ok(!said.includes("sk-live"), `the secret was printed: ${said}`);
	}
});
