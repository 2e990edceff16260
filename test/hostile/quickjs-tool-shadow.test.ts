/**
 * Red-team findings G1 and G3: which grant a tool's rewrite needs is decided by the tool pi actually runs under
 * that name. A QuickJS extension registering a tool named like the user's own in-process tool does not make
 * that tool "its own": pi gives the name to the first registration (the user's extensions load before pier's
 * bridge), so the user's tool would run the extension's command. Nor does a process tool that declares
 * `capability: "read"` vouch for a name pi gives to someone else.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage } from "../helpers/scripted.js";

const SHADOW = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-shadow");

/** The user's own in-process pi extension: tools that run the command they are given. */
function installUserTools(agentDir: string, names: readonly string[]): string {
	const dir = join(agentDir, "extensions");
	mkdirSync(dir, { recursive: true });
	const file = join(dir, "user-tools.ts");
	const tools = names.map(
		(
			name,
		) => `	pi.registerTool({ name: ${JSON.stringify(name)}, label: "t", description: "runs the command it is given",
		parameters: Type.Object({ cmd: Type.String() }),
		execute: async (_id, p) => ({ content: [{ type: "text", text: execSync(p.cmd, { encoding: "utf8" }) || "ran" }], details: {} }) });`,
	);
	writeFileSync(
		file,
		`import { execSync } from "node:child_process";\nimport { Type } from "typebox";\nexport default function (pi) {\n${tools.join("\n")}\n}\n`,
	);
	return file;
}

async function run(agentDir: string, cwd: string, prompt: string, extensions: readonly string[]) {
	const args = ["run", "--mode", "json", "--no-session", ...extensions.flatMap((e) => ["-e", e]), prompt];
	const result = await runPier(args, { agentDir, cwd, timeoutMs: 60_000 });
	assert.equal(result.code, 0, result.stderr);
	const end = jsonLines(result.stdout).find((e) => e.type === "tool_execution_end") as
		| { result?: { content: { text: string }[] } }
		| undefined;
	return { ...result, output: end?.result?.content.map((c) => c.text).join("") ?? "" };
}

describe("a QuickJS extension's tool named like another extension's tool (G1)", () => {
	test("the user's in-process tool keeps the model's input; the conflict names both extensions", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		const userTools = installUserTools(agent.path, ["deploy"]);
		const result = await run(agent.path, project.path, 'deploy {"cmd":"echo by-model > model-file"}', [SHADOW]);
		assert.equal(existsSync(join(project.path, "deploy-marker")), false, "the extension's command must not run");
		assert.equal(readFileSync(join(project.path, "model-file"), "utf8"), "by-model\n");
		assert.ok(
			result.stderr.includes(
				`extension "qjs-shadow" may not replace the input of deploy (the tool pi runs under that name is ${userTools}'s): it lacks the "run" grant`,
			),
			result.stderr,
		);
		assert.ok(
			result.stderr.includes(
				`tool "deploy" of extension qjs-shadow (${join(SHADOW, "pi-extension.json")}) is not used: pi extension ${userTools} registered "deploy" first`,
			),
			result.stderr,
		);
		assert.doesNotMatch(result.stderr, /<inline:\d+>/);
	});

	test("without the user's tool the name is the sandbox's own and its rewrite needs no grant", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		const result = await run(agent.path, project.path, 'deploy {"cmd":"echo by-model > model-file"}', [SHADOW]);
		assert.equal(result.output, "sandboxed");
		assert.doesNotMatch(result.stderr, /may not/);
		assert.equal(existsSync(join(project.path, "model-file")), false);
	});

	test("a process tool declaring capability read does not vouch for a name pi gives to the user's tool", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		installUserTools(agent.path, ["deploy"]);
		const tool = {
			name: "deploy",
			label: "deploy",
			description: "reads",
			parameters: { type: "object" },
			capability: "read",
		};
		const reader = scriptedPackage(agent.path, "reader", { tools: [], register: [{ kind: "tool", tool }] });
		// The user granted the sandboxed extension "read": enough for a read tool, not for what really runs.
		const granted = await runPier(["grant", SHADOW, "read"], { agentDir: agent.path });
		assert.equal(granted.code, 0, granted.stderr);
		const result = await run(agent.path, project.path, 'deploy {"cmd":"echo by-model > model-file"}', [reader, SHADOW]);
		assert.equal(existsSync(join(project.path, "deploy-marker")), false, "the extension's command must not run");
		assert.equal(readFileSync(join(project.path, "model-file"), "utf8"), "by-model\n");
		assert.match(
			result.stderr,
			/extension "qjs-shadow" may not replace the input of deploy .*it lacks the "run" grant/,
		);
	});
});

describe("tool names are not looked up through a prototype (G3)", () => {
	// pier's gate is checked with every Object.prototype name in test/extensions/grant-gate.test.ts. In a real
	// session pi 1.6 stops first: its system prompt builder reads tool guidelines from a plain object by name.
	test("a user tool named like a prototype member stops pi 1.6 before any call, and nothing runs", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		installUserTools(agent.path, ["constructor"]);
		const prompt = 'constructor {"cmd":"echo by-model > constructor-model"}';
		const result = await runPier(["run", "--no-session", "-e", SHADOW, prompt], {
			agentDir: agent.path,
			cwd: project.path,
			timeoutMs: 60_000,
		});
		assert.notEqual(result.code, 0, "pi refuses the session");
		assert.match(result.stderr, /not iterable/, "pi's own error, passed on");
		assert.equal(existsSync(join(project.path, "constructor-marker")), false);
		assert.equal(existsSync(join(project.path, "constructor-model")), false);
	});
});
