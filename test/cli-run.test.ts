import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

function sessionFiles(agentDir: string): string[] {
	const root = join(agentDir, "sessions");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((f) => f.endsWith(".jsonl"))
		.map((f) => join(root, f));
}

describe("pier run with nothing configured", () => {
	test("answers from pier/demo and writes a version-3 session pi's SessionManager opens", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "hello"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /offline demo model \(pier\/demo\)/);
		assert.match(result.stdout, /--model provider\/id/);
		assert.match(result.stderr, /model pier\/demo/);

		const files = sessionFiles(dir.path);
		assert.equal(files.length, 1);
		const header = JSON.parse(readFileSync(files[0]!, "utf8").split("\n")[0]!) as { type: string; version: number };
		assert.deepEqual([header.type, header.version], ["session", 3]);
		const opened = SessionManager.open(files[0]!);
		const messages = opened.buildSessionContext().messages;
		// pi 1.6 keeps the system prompt and tools in the session, as the first message.
		assert.deepEqual(
			messages.map((m) => m.role),
			["system", "user", "assistant"],
		);
		assert.equal(opened.buildSessionContext().model?.provider, "pier");
	});

	test("the demo answer is deterministic", async () => {
		using dir = tempDir();
		const a = await runPier(["run", "what is 2+2"], { agentDir: dir.path });
		const b = await runPier(["run", "what is 2+2"], { agentDir: dir.path });
		assert.equal(a.code, 0, a.stderr);
		assert.equal(a.stdout, b.stdout);
		assert.match(a.stdout, /"what is 2\+2"/);
	});

	test("--continue appends to the most recent session and `pier sessions` lists it", async () => {
		using dir = tempDir();
		assert.equal((await runPier(["run", "first"], { agentDir: dir.path })).code, 0);
		const second = await runPier(["run", "--continue", "second"], { agentDir: dir.path });
		assert.equal(second.code, 0, second.stderr);
		const files = sessionFiles(dir.path);
		assert.equal(files.length, 1, "continue must not start a new file");
		const roles = SessionManager.open(files[0]!)
			.buildSessionContext()
			.messages.map((m) => m.role);
		assert.deepEqual(roles, ["system", "user", "assistant", "user", "assistant"]);

		const listed = await runPier(["sessions", "--json"], { agentDir: dir.path });
		assert.equal(listed.code, 0, listed.stderr);
		const rows = jsonLines(listed.stdout);
		assert.equal(rows.length, 1);
		assert.equal(rows[0]!.path, files[0]);
		assert.equal(rows[0]!.messageCount, 5, "as pi 1.6 counts: its system message and four turns");
		assert.equal(rows[0]!.firstMessage, "first");
	});

	test("--session reopens a given file", async () => {
		using dir = tempDir();
		await runPier(["run", "one"], { agentDir: dir.path });
		const [file] = sessionFiles(dir.path);
		const again = await runPier(["run", "--session", file!, "two"], { agentDir: dir.path });
		assert.equal(again.code, 0, again.stderr);
		assert.equal(sessionFiles(dir.path).length, 1);
		assert.equal(
			SessionManager.open(file!).buildSessionContext().messages.length,
			5,
			"the system message and two turns",
		);
	});

	test("--no-session keeps nothing on disk", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--no-session", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.deepEqual(sessionFiles(dir.path), []);
	});
});

describe("pier run errors", () => {
	test("an unknown model is pi's error, exit code 1 as in pi, with the models that have credentials", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--model", "nope/none", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 1);
		assert.match(result.stderr, /Model "nope\/none" not found\. .*Models with credentials: .*pier\/demo/);
	});

	test("bad usage is reported, not thrown", async () => {
		using dir = tempDir();
		for (const [args, message] of [
			[["run"], /pier run needs a prompt/],
			[["run", "--thinking", "huge", "x"], /--thinking must be one of/],
			[["run", "--mode", "xml", "x"], /--mode must be text, json or rpc/],
			[["run", "-q", "x"], /unknown option -q/],
			[["run", "--session", "a.jsonl", "--continue", "x"], /cannot be combined/],
		] as const) {
			const result = await runPier(args, { agentDir: dir.path });
			assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
			assert.match(result.stderr, message);
			assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
		}
	});

	test("--version and --help answer without a model", async () => {
		using dir = tempDir();
		const version = await runPier(["--version"], { agentDir: dir.path });
		assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version);
		const help = await runPier(["--help"], { agentDir: dir.path });
		assert.match(help.stdout, /pier run \[options\] "<prompt>"/);
	});
});
