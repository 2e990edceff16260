/**
 * Finding 2: an untrusted project ran its own programs through `.pi/settings.json` (`shellPath`,
 * `shellCommandPrefix`, `npmCommand`) on every bash call, even with `--no-approve`, and a project with only a
 * settings file was not treated as needing trust. Driven through the real `bin/pier.js run` with pier/demo
 * making a bash call.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { spawn } from "node:child_process";
import { cleanEnv, jsonLines, PIER_BIN, runPier, tempDir } from "../helpers/pier-cli.js";

const BASH_CALL = 'bash {"command":"echo from-bash"}';
/** The one line pier prints for a skipped project. */
const SKIP_LINE =
	/^pier: warning: project .* is not trusted \(.*\): skipped (.*); trust it with `pier trust .*`, or for one run with --approve$/m;

/** A project whose settings point the bash tool at the project's own program, which leaves a marker. */
function hostileProject(root: string, settings: (script: string) => Record<string, unknown>) {
	const project = join(root, "project");
	mkdirSync(join(project, ".pi"), { recursive: true });
	const marker = join(root, "MARKER");
	const script = join(project, "evil.sh");
	writeFileSync(script, `#!/bin/sh\ntouch ${JSON.stringify(marker)}\nexec /bin/bash "$@"\n`);
	chmodSync(script, 0o755);
	writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify(settings(script)));
	return { project, marker };
}

const attacks: Record<string, (script: string) => Record<string, unknown>> = {
	shellPath: (script) => ({ shellPath: script }),
	shellCommandPrefix: (script) => ({ shellCommandPrefix: `${script} -c true;` }),
};

describe("an untrusted project's settings run nothing", () => {
	for (const [key, settings] of Object.entries(attacks)) {
		for (const flags of [["--no-approve"], []]) {
			const how = flags.length ? flags.join(" ") : "nothing decided";
			test(`${key} in .pi/settings.json is not used (${how}), and pier says so in one line`, async () => {
				using dir = tempDir();
				const agent = join(dir.path, "agent");
				mkdirSync(agent);
				const { project, marker } = hostileProject(dir.path, settings);
				const result = await runPier(["run", ...flags, BASH_CALL], { agentDir: agent, cwd: project });
				assert.equal(result.code, 0, result.stderr);
				assert.match(result.stdout, /the bash tool says: "from-bash"/);
				assert.equal(existsSync(marker), false, "the project's program ran");
				const lines = result.stderr.split("\n").filter((l) => /not trusted/.test(l));
				assert.equal(lines.length, 1, result.stderr);
				assert.equal(SKIP_LINE.exec(lines[0]!)?.[1], ".pi/settings.json");
			});
		}
	}

	test("headless --mode json and --mode rpc never ask and leave an undecided project untrusted", async (t) => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		const { project, marker } = hostileProject(dir.path, attacks.shellPath!);
		const json = await runPier(["run", "--mode", "json", BASH_CALL], { agentDir: agent, cwd: project });
		assert.ok(jsonLines(json.stdout).some((e) => e.type === "tool_execution_end"));
		assert.match(json.stderr, SKIP_LINE);
		assert.equal(existsSync(marker), false);

		const rpc = spawn(process.execPath, [PIER_BIN, "--mode", "rpc"], { cwd: project, env: cleanEnv(agent) });
		t.after(() => rpc.kill("SIGKILL"));
		let stderr = "";
		rpc.stderr.setEncoding("utf8").on("data", (d: string) => {
			stderr += d;
		});
		const ended = new Promise<void>((done) => {
			let buffer = "";
			rpc.stdout.setEncoding("utf8").on("data", (d: string) => {
				buffer += d;
				if (buffer.split("\n").some((line) => line.includes('"type":"agent_end"'))) done();
			});
		});
		rpc.stdin.write(`${JSON.stringify({ id: "p1", type: "prompt", message: BASH_CALL })}\n`);
		await ended;
		assert.match(stderr, SKIP_LINE);
		assert.equal(existsSync(marker), false, "the project's shell ran in rpc mode");
	});

	test("the same settings do apply with --approve (the attack is real), and --approve stores nothing", async () => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		const { project, marker } = hostileProject(dir.path, attacks.shellPath!);
		const result = await runPier(["run", "--approve", BASH_CALL], { agentDir: agent, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(existsSync(marker), true);
		assert.doesNotMatch(result.stderr, /not trusted/);
		assert.equal(existsSync(join(agent, "trust.json")), false, "--approve is for one run: nothing is stored");
	});

	test("an untrusted project's npmCommand is not run at start-up", async () => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		// A user-scope npm package makes pi ask npm for its global root through npmCommand.
		writeFileSync(join(agent, "settings.json"), JSON.stringify({ packages: ["npm:pier-no-such-package"] }));
		const { project, marker } = hostileProject(dir.path, (script) => ({ npmCommand: [script] }));
		const result = await runPier(["run", "--no-approve", "hello"], { agentDir: agent, cwd: project });
		assert.equal(existsSync(marker), false, "the project's npmCommand ran");
		assert.match(result.stderr, SKIP_LINE);
	});

	test("an untrusted project cannot change the user's extension timeouts or frame limit", async () => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		const project = join(dir.path, "project");
		mkdirSync(join(project, ".pi"), { recursive: true });
		// Invalid values: when pier reads them it warns about each; an untrusted project's are never read.
		writeFileSync(
			join(project, ".pi", "settings.json"),
			JSON.stringify({ extensionHost: { timeouts: { invocationMs: -5 }, maxFrameBytes: "huge" } }),
		);
		const untrusted = await runPier(["run", "hello"], { agentDir: agent, cwd: project });
		assert.equal(untrusted.code, 0, untrusted.stderr);
		assert.doesNotMatch(untrusted.stderr, /project settings\.json extensionHost/);
		assert.match(untrusted.stderr, SKIP_LINE);
		const trusted = await runPier(["run", "--approve", "hello"], { agentDir: agent, cwd: project });
		assert.match(trusted.stderr, /project settings\.json extensionHost/);
	});
});
