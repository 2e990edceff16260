import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";
import { scriptedPackage } from "./helpers/scripted.js";

const NODE_WEATHER = join(REPO_ROOT, "examples", "process", "node-weather");

describe("pier ext", () => {
	test("validate: a good package passes, a bad one names the file and field", async () => {
		using dir = tempDir();
		const ok = await runPier(["ext", "validate", NODE_WEATHER], { agentDir: dir.path });
		assert.equal(ok.code, 0, ok.stderr);
		assert.match(ok.stdout, /"id": "node-weather"/);
		const bad = join(dir.path, "bad");
		mkdirSync(bad);
		writeFileSync(join(bad, "pi-extension.json"), JSON.stringify({ schemaVersion: 1, id: "bad id", executable: "x" }));
		const failed = await runPier(["ext", "validate", bad], { agentDir: dir.path });
		assert.equal(failed.code, 1);
		assert.match(failed.stderr, /bad\/pi-extension\.json: id: "bad id" contains unsupported characters/);
	});

	test("invoke: a tool, a command and a hook print their JSON result", async () => {
		using dir = tempDir();
		const tool = await runPier(["ext", "invoke", NODE_WEATHER, "--tool", "weather", "--args", '{"city":"Oslo"}'], {
			agentDir: dir.path,
		});
		assert.equal(tool.code, 0, tool.stderr);
		assert.equal(JSON.parse(tool.stdout).content[0].text, "Oslo: 10°C, light rain (from a process extension)");
		const command = await runPier(["ext", "invoke", NODE_WEATHER, "--command", "forecast", "--args", "Oslo"], {
			agentDir: dir.path,
		});
		assert.equal(command.code, 0, command.stderr);
		assert.match(command.stderr, /\[ui notify\] Oslo: 10°C/);
		const hook = await runPier(
			[
				"ext",
				"invoke",
				NODE_WEATHER,
				"--event",
				"tool_call",
				"--data",
				'{"toolName":"dangerous","toolCallId":"1","input":{}}',
			],
			{ agentDir: dir.path },
		);
		assert.equal(hook.code, 0, hook.stderr);
		assert.deepEqual(JSON.parse(hook.stdout), { block: true, reason: "blocked by node-weather" });
	});

	test("invoke: failures exit 1 with the error on stderr; a timeout is honoured", async () => {
		using dir = tempDir();
		const missing = await runPier(["ext", "invoke", NODE_WEATHER, "--tool", "nope"], { agentDir: dir.path });
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /no extension tool "nope"/);
		const hang = scriptedPackage(dir.path, "hanger", { tools: ["hang"] });
		const timedOut = await runPier(["ext", "invoke", hang, "--tool", "hang", "--timeout-ms", "300"], {
			agentDir: dir.path,
		});
		assert.equal(timedOut.code, 1);
		assert.match(timedOut.stderr, /error \(timeout\): extension hanger did not answer within 300 ms/);
		const usage = await runPier(["ext", "invoke", NODE_WEATHER], { agentDir: dir.path });
		assert.equal(usage.code, 2);
		assert.match(usage.stderr, /exactly one of --tool, --command, --event/);
	});

	test("invoke works for an in-process TS extension too", async () => {
		using dir = tempDir();
		const weather = join(REPO_ROOT, "examples", "extensions", "weather.ts");
		const tool = await runPier(["ext", "invoke", weather, "--tool", "weather", "--args", '{"city":"Oslo"}'], {
			agentDir: dir.path,
		});
		assert.equal(tool.code, 0, tool.stderr);
		assert.equal(JSON.parse(tool.stdout).content[0].text, "Oslo: 10°C, light rain");
	});

	test("test: a conformant extension passes; a crashing one fails with a readable report", async () => {
		using dir = tempDir();
		const good = await runPier(["ext", "test", NODE_WEATHER], { agentDir: dir.path });
		assert.equal(good.code, 0, good.stdout + good.stderr);
		assert.match(good.stdout, /✓ tool weather answers \{"city":"Oslo"\}/);
		assert.match(good.stdout, /✓ clean shutdown/);
		assert.match(good.stdout, /all 5 checks passed/);
		const crashy = scriptedPackage(dir.path, "crashy", { tools: ["crash"] });
		const bad = await runPier(["ext", "test", crashy], { agentDir: dir.path });
		assert.equal(bad.code, 1);
		assert.match(bad.stdout, /✗ tool crash answers \{\} — transport_closed: .*exited \(code 3\)/);
	});
});
