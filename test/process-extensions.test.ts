import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";
import { scriptedPackage } from "./helpers/scripted.js";

const NODE_WEATHER = join(REPO_ROOT, "examples", "process", "node-weather");
const PYTHON_ECHO = join(REPO_ROOT, "examples", "process", "python-echo");
const DANGEROUS = join(REPO_ROOT, "test", "fixtures", "extensions", "dangerous.ts");

describe("process extensions in pier run", () => {
	test("the demo model calls a process extension's tool and the answer quotes it", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--mode", "json", "-e", NODE_WEATHER, 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const events = jsonLines(result.stdout);
		const update = events.find((e) => e.type === "tool_execution_update") as unknown as {
			partialResult: { content: { text: string }[] };
		};
		assert.match(update.partialResult.content[0]!.text, /Looking up Oslo/);
		const end = events.findLast((e) => e.type === "message_end") as unknown as {
			message: { content: { text: string }[] };
		};
		assert.equal(
			end.message.content[0]!.text,
			'Done: the weather tool says: "Oslo: 10°C, light rain (from a process extension)".',
		);
	});

	test("a Python extension speaks the same protocol", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", PYTHON_ECHO, 'echo {"text":"hi"}'], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), 'Done: the echo tool says: "echo: hi".');
	});

	test("a process extension's tool_call hook blocks a tool", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", NODE_WEATHER, "-e", DANGEROUS, "dangerous {}"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.doesNotMatch(result.stdout, /THE DANGEROUS TOOL RAN/);
		assert.match(result.stdout, /the dangerous tool failed: ".*blocked by node-weather.*"/);
	});

	test("a process extension's input hook transforms the prompt", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--mode", "json", "-e", NODE_WEATHER, "shout: quiet please"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const user = jsonLines(result.stdout).find(
			(e) => e.type === "message_start" && (e.message as { role: string }).role === "user",
		) as unknown as { message: { content: { text: string }[] } };
		assert.equal(user.message.content[0]!.text, "QUIET PLEASE");
	});

	test("a crash mid-invocation is reported with stderr and the session still answers", async () => {
		using dir = tempDir();
		const pkg = scriptedPackage(dir.path, "fragile", { tools: ["crash"] });
		const result = await runPier(["run", "-e", pkg, "crash {}"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /the crash tool failed: ".*exited \(code 3\).*scripted crash/s);
		assert.match(result.stderr, /extension fragile crashed/);
	});

	test("a broken manifest is named with its field and file; pier still answers", async () => {
		using dir = tempDir();
		const pkg = join(dir.path, "broken");
		mkdirSync(pkg);
		writeFileSync(
			join(pkg, "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "broken", executable: "../x" }),
		);
		const result = await runPier(["run", "-e", pkg, "hello"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(
			result.stderr,
			/broken\/pi-extension\.json: executable: "\.\.\/x" must remain inside the manifest directory/,
		);
		assert.match(result.stdout, /offline demo model/);
	});

	test("user extensions are discovered; an untrusted project's manifests are skipped at discovery", async () => {
		using dir = tempDir();
		scriptedPackage(join(dir.path, "extensions"), "user-ext", { tools: ["echo"] });
		const user = await runPier(["run", 'echo {"text":"mine"}'], { agentDir: dir.path });
		assert.match(user.stdout, /echo:mine/);

		const project = join(dir.path, "project");
		cpSync(PYTHON_ECHO, join(project, ".pi", "extensions", "python-echo"), { recursive: true });
		chmodSync(join(project, ".pi", "extensions", "python-echo", "main.py"), 0o755);
		using agent = tempDir();
		const refused = await runPier(["run", 'echo {"text":"x"}'], { agentDir: agent.path, cwd: project });
		assert.match(refused.stderr, /project .* is not trusted \(no decision yet\): skipped \.pi\/extensions;/);
		assert.match(refused.stdout, /no active tool named "echo"/);
		const approved = await runPier(["run", "--approve", 'echo {"text":"x"}'], { agentDir: agent.path, cwd: project });
		assert.match(approved.stdout, /echo: x/);
	});

	test("settings.json configures the host: timeouts, and environment from global settings only", async () => {
		using dir = tempDir();
		writeFileSync(
			join(dir.path, "settings.json"),
			JSON.stringify({ extensionHost: { timeouts: { invocationMs: 300 }, environment: { GRANTED: "yes" } } }),
		);
		const pkg = scriptedPackage(dir.path, "configured", { tools: ["hang", "env"] });
		const hung = await runPier(["run", "-e", pkg, "hang {}"], { agentDir: dir.path });
		assert.match(hung.stdout, /the hang tool failed: ".*did not answer within 300 ms/);
		const project = join(dir.path, "project");
		mkdirSync(join(project, ".pi"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "settings.json"),
			JSON.stringify({ extensionHost: { environment: { NODE_OPTIONS: "--evil" } } }),
		);
		// Even a trusted project grants no environment: only the user's global settings do.
		const env = await runPier(["run", "--approve", "--mode", "json", "-e", pkg, "env {}"], {
			agentDir: dir.path,
			cwd: project,
		});
		const end = jsonLines(env.stdout).find((e) => e.type === "tool_execution_end") as unknown as {
			result: { content: { text: string }[] };
		};
		const seen = JSON.parse(end.result.content[0]!.text) as Record<string, string>;
		assert.equal(seen.GRANTED, "yes");
		assert.equal(seen.NODE_OPTIONS, undefined);
		assert.match(env.stderr, /project settings\.json extensionHost\.environment is ignored/);
	});

	test("a user extension's trust hooks decide an undecided project, never one the user refused", async () => {
		using agent = tempDir();
		using work = tempDir();
		const project = join(work.path, "project");
		cpSync(PYTHON_ECHO, join(project, ".pi", "extensions", "python-echo"), { recursive: true });
		scriptedPackage(join(agent.path, "extensions"), "trust-policy", {
			tools: [],
			hooks: ["trust_decision"],
			hook: "approve",
		});
		const approved = await runPier(["run", 'echo {"text":"trusted"}'], { agentDir: agent.path, cwd: project });
		assert.match(approved.stdout, /echo: trusted/);
		assert.match(approved.stderr, /project trusted by extension trust-policy/);
		const refused = await runPier(["run", "--no-approve", 'echo {"text":"x"}'], { agentDir: agent.path, cwd: project });
		assert.match(refused.stdout, /no active tool named "echo"/);

		using other = tempDir();
		scriptedPackage(join(other.path, "extensions"), "trust-veto", {
			tools: [],
			hooks: ["project_trust", "trust_decision"],
			hook: "trust-no",
		});
		const vetoed = await runPier(["run", 'echo {"text":"x"}'], { agentDir: other.path, cwd: project });
		assert.match(vetoed.stdout, /no active tool named "echo"/);
		assert.match(vetoed.stderr, /not trusted/);
	});
});
