/**
 * A native manifest everywhere manifests go: `pier ext validate` and `pier ext invoke` (tool, command,
 * event), `pier list` (an extension directory; `--check` loads it), and `-e` in `pier run`.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { echo, probe } from "./host-helpers.js";

describe("native manifests in the CLI", () => {
	test("pier ext validate shows the native runtime; ext test passes; invoke runs a tool and an event", async () => {
		using dir = tempDir();
		const pkg = await echo(dir.path);
		const validated = await runPier(["ext", "validate", pkg], { agentDir: dir.path });
		assert.equal(validated.code, 0, validated.stderr);
		assert.match(validated.stdout, /"kind": "native"/);
		assert.match(validated.stdout, /libnative_echo\.so/);
		const tool = await runPier(["ext", "invoke", pkg, "--tool", "echo", "--args", '{"text":"cli"}'], {
			agentDir: dir.path,
		});
		assert.equal(tool.code, 0, tool.stderr);
		assert.match(tool.stdout, /"text": "echo: cli"/);
		const conformance = await runPier(["ext", "test", pkg], { agentDir: dir.path, timeoutMs: 60_000 });
		assert.equal(conformance.code, 0, conformance.stdout + conformance.stderr);
		assert.match(conformance.stdout, /all \d+ checks passed/);
		const probePkg = await probe(dir.path);
		const blocked = await runPier(
			[
				"ext",
				"invoke",
				probePkg,
				"--event",
				"tool_call",
				"--data",
				'{"toolCallId":"x","toolName":"forbidden","input":{}}',
			],
			{ agentDir: dir.path },
		);
		assert.equal(blocked.code, 0, blocked.stderr);
		assert.match(blocked.stdout, /"block": true/);
	});

	test("pier ext validate names a broken native manifest's field", async () => {
		using dir = tempDir();
		const pkg = join(dir.path, "broken");
		mkdirSync(pkg);
		writeFileSync(
			join(pkg, "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "broken", runtime: "native" }),
		);
		const result = await runPier(["ext", "validate", pkg], { agentDir: dir.path });
		assert.equal(result.code, 1);
		assert.match(result.stderr, /pi-extension\.json: library: a native extension requires library/);
	});

	test("an extension directory of a native plugin is listed as native, loads with --check, and runs in pier run", async () => {
		using dir = tempDir();
		const agentDir = join(dir.path, "agent");
		const installed = join(agentDir, "extensions", "native-echo");
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		cpSync(await echo(join(dir.path, "build")), installed, { recursive: true });
		const listed = await runPier(["list", "--json", "--check"], { agentDir });
		assert.equal(listed.code, 0, listed.stderr);
		const entry = (JSON.parse(listed.stdout).extensions as Array<Record<string, unknown>>).find(
			(e) => e.id === "native-echo",
		);
		assert.ok(entry, listed.stdout);
		assert.equal(entry.kind, "native");
		assert.equal(entry.state, "enabled");
		const run = await runPier(["run", 'echo {"text":"installed"}'], { agentDir });
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stdout, /echo: installed/);
	});
});
