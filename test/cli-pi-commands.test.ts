/**
 * `pier auth`, `pier config` and `pier mcp` are pi's commands: the same output and exit code as pi 1.6's own CLI
 * in the same agent directory, the same files written, and pier's trust store deciding what a project may add.
 * MCP servers are real processes (test/fixtures/mcp/echo-server.mjs) over stdio.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ECHO_SERVER, isAlive, pidsIn } from "./helpers/mcp.js";
import { cleanEnv, jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

const PI_CLI = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");

/** pi 1.6's own CLI, with the same clean environment runPier gives pier. */
function runPi(
	args: readonly string[],
	agentDir: string,
	cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [PI_CLI, ...args], {
			cwd,
			env: cleanEnv(agentDir),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
		child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stdout, stderr }));
	});
}

describe("pi's commands in pier", () => {
	for (const args of [
		["auth", "--help"],
		["auth", "bogus"],
		["config", "--help"],
		["mcp", "--help"],
		["mcp", "list"],
	]) {
		test(`pier ${args.join(" ")} is pi ${args.join(" ")}: same output, same exit code`, async () => {
			using dir = tempDir();
			const [pier, pi] = await Promise.all([runPier(args, { agentDir: dir.path }), runPi(args, dir.path, dir.path)]);
			assert.equal(pier.code, pi.code, `exit codes: pier ${pier.code} (${pier.stderr}), pi ${pi.code}`);
			assert.equal(pier.stdout, pi.stdout);
			assert.equal(pier.stderr, pi.stderr);
		});
	}

	test("pier auth check reads the credentials pi reads, as pi prints them", async () => {
		using dir = tempDir();
		writeFileSync(
			join(dir.path, "auth.json"),
			`${JSON.stringify({ anthropic: { type: "api_key", key: "sk-test" } })}\n`,
		);
		const args = ["auth", "check", "--provider", "anthropic", "--json"];
		const [pier, pi] = await Promise.all([runPier(args, { agentDir: dir.path }), runPi(args, dir.path, dir.path)]);
		assert.equal(pier.code, pi.code, pier.stderr);
		assert.equal(pier.stdout, pi.stdout);
		assert.match(pier.stdout, /"status":"ready"/);
		const missing = await runPier(["auth", "check", "--provider", "openai", "--json"], { agentDir: dir.path });
		assert.doesNotMatch(missing.stdout, /"status":"ready"/, "no credential for openai: not ready");
	});

	test("pier mcp add writes pi's mcp.json, list connects to the real server, remove takes it out", async () => {
		using dir = tempDir();
		const added = await runPier(["mcp", "add", "echo", "--", "node", ECHO_SERVER], { agentDir: dir.path });
		assert.equal(added.code, 0, added.stderr);
		const config = JSON.parse(readFileSync(join(dir.path, "mcp.json"), "utf8")) as {
			mcpServers: Record<string, { command: string; args: string[] }>;
		};
		assert.deepEqual(config.mcpServers.echo, { command: "node", args: [ECHO_SERVER] });
		const listed = await runPier(["mcp", "list", "--json"], { agentDir: dir.path });
		assert.equal(listed.code, 0, listed.stderr);
		const report = JSON.parse(listed.stdout) as { servers: Array<{ name: string; state?: string; tools?: unknown[] }> };
		const echo = report.servers.find((s) => s.name === "echo");
		assert.ok(echo, listed.stdout);
		assert.match(JSON.stringify(echo), /"echo"/);
		assert.match(JSON.stringify(echo), /"pid"/, "the server's tools were listed: it ran and answered");
		const removed = await runPier(["mcp", "remove", "echo"], { agentDir: dir.path });
		assert.equal(removed.code, 0, removed.stderr);
		assert.doesNotMatch(readFileSync(join(dir.path, "mcp.json"), "utf8"), /echo-server/);
	});

	test("pier mcp list in an untrusted project starts none of its .pi/mcp.json servers, and says why", async () => {
		using dir = tempDir();
		const project = join(dir.path, "project");
		mkdirSync(join(project, ".pi"), { recursive: true });
		const pids = join(dir.path, "pids");
		writeFileSync(
			join(project, ".pi", "mcp.json"),
			JSON.stringify({ mcpServers: { evil: { command: "node", args: [ECHO_SERVER], env: { MCP_PID_FILE: pids } } } }),
		);
		const listed = await runPier(["mcp", "list"], { agentDir: dir.path, cwd: project });
		assert.equal(listed.code, 0, listed.stderr);
		assert.match(listed.stdout + listed.stderr, /is ignored because the project is not trusted/);
		assert.deepEqual(pidsIn(pids), [], "no server of the untrusted project started");
	});
});

describe("MCP servers in pier run (pi's built-in MCP extension)", () => {
	function withServer(root: string, where: "global" | "project"): { project: string; pids: string } {
		const project = join(root, "project");
		mkdirSync(join(project, ".pi"), { recursive: true });
		const pids = join(root, "pids");
		const config = {
			mcpServers: {
				echo: { command: "node", args: [ECHO_SERVER], exposure: "direct", env: { MCP_PID_FILE: pids } },
			},
		};
		writeFileSync(join(where === "global" ? root : join(project, ".pi"), "mcp.json"), JSON.stringify(config));
		return { project, pids };
	}

	test("a server in the user's mcp.json answers a tool call, and is gone when the run ends", async () => {
		using dir = tempDir();
		const { project, pids } = withServer(dir.path, "global");
		const result = await runPier(["run", "--no-session", 'mcp__echo__echo {"text":"hi there"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /echo: hi there/);
		const started = pidsIn(pids);
		assert.equal(started.length, 1, "one server process ran");
		assert.equal(isAlive(started[0]!), false, `the server (pid ${started[0]}) outlived pier run`);
	});

	test("an untrusted project's .pi/mcp.json starts nothing; --approve starts it, and it ends with the run", async () => {
		using dir = tempDir();
		const { project, pids } = withServer(dir.path, "project");
		const refused = await runPier(["run", "--no-session", 'mcp__echo__echo {"text":"hi"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.equal(refused.code, 0, refused.stderr);
		assert.match(refused.stderr, /skipped \.pi\/mcp\.json/);
		assert.match(refused.stdout, /no active tool named "mcp__echo__echo"/);
		assert.deepEqual(pidsIn(pids), [], "the untrusted project's server never started");

		const approved = await runPier(["run", "--approve", "--no-session", 'mcp__echo__echo {"text":"hi"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.equal(approved.code, 0, approved.stderr);
		assert.match(approved.stdout, /echo: hi/);
		const started = pidsIn(pids);
		assert.equal(started.length, 1);
		assert.equal(isAlive(started[0]!), false, "the server ended with the run");
	});

	test("with codemode exposure the tool answers from a codemode script, and is not declared to the model", async () => {
		using dir = tempDir();
		const pids = join(dir.path, "pids");
		const config = {
			mcpServers: { echo: { command: "node", args: [ECHO_SERVER], exposure: "codemode", env: { MCP_PID_FILE: pids } } },
		};
		writeFileSync(join(dir.path, "mcp.json"), JSON.stringify(config));
		const script = { code: "return await tools.mcp__echo__echo({ text: 'from a script' })" };
		const result = await runPier(["run", "--no-session", "--mode", "json", `codemode ${JSON.stringify(script)}`], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const ends = jsonLines(result.stdout).filter((e) => e.type === "tool_execution_end") as unknown as {
			toolName: string;
			isError: boolean;
			result: unknown;
		}[];
		// The script's call of the MCP tool is a nested call: it ends too, inside the codemode call.
		assert.deepEqual(ends.map((e) => e.toolName).sort(), ["codemode", "mcp__echo__echo"], result.stdout.slice(-2000));
		const codemode = ends.find((e) => e.toolName === "codemode")!;
		assert.equal(codemode.isError, false, JSON.stringify(codemode));
		assert.match(JSON.stringify(codemode.result), /echo: from a script/);
		const direct = await runPier(["run", "--no-session", 'mcp__echo__echo {"text":"hi"}'], { agentDir: dir.path });
		assert.match(direct.stdout, /no active tool named "mcp__echo__echo"/, "codemode tools are not the model's");
	});

	test("--no-mcp starts no server", async () => {
		using dir = tempDir();
		const { project, pids } = withServer(dir.path, "global");
		const result = await runPier(["run", "--no-mcp", "--no-session", 'mcp__echo__echo {"text":"hi"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /no active tool named "mcp__echo__echo"/);
		assert.deepEqual(pidsIn(pids), []);
	});
});
