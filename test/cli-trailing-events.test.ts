/**
 * `pier run --mode json` prints the agent's trailing events (`message_end`, `turn_end`, `agent_end`) even
 * when a QuickJS extension hooks `message_end` and `turn_end`, so each of them waits for the extension's
 * answer. pi 0.74.2's prompt resolved before its queued events reached print mode (pier patched it); pi 1.6's
 * prompt resolves only after `agent_settled`, its last event, has reached every listener, so pier keeps pi's
 * behaviour. Every run must print them, in order, then `agent_settled` last.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { runPier, tempDir } from "./helpers/pier-cli.js";

const HOOKS = fileURLToPath(new URL("../../test/fixtures/quickjs/hooks", import.meta.url));
const RUNS = 8;
const AT_ONCE = 4;

test(`${RUNS} of ${RUNS} json runs with a hooking QuickJS extension print the trailing events`, async () => {
	using dir = tempDir("pier-trailing-");
	const cwd = join(dir.path, "project");
	mkdirSync(cwd);
	const run = async (n: number) => {
		// Four at once on a loaded machine: the 30 s default is too close for pi 1.6's slower start.
		const result = await runPier(["run", "--mode", "json", "-e", HOOKS, `hello ${n}`], {
			agentDir: dir.path,
			cwd,
			timeoutMs: 120_000,
		});
		assert.equal(result.code, 0, result.stderr);
		const types = result.stdout
			.trim()
			.split("\n")
			.map((line) => (JSON.parse(line) as { type: string }).type);
		const tail = types.filter((t) => t === "message_end" || t === "turn_end" || t === "agent_end");
		assert.deepEqual(tail.slice(-3), ["message_end", "turn_end", "agent_end"], `run ${n}: ${types.join(" ")}`);
		assert.deepEqual(types.slice(-2), ["agent_end", "agent_settled"], `run ${n}: ${types.join(" ")}`);
		assert.ok(types.includes("turn_start"), `run ${n} printed the turn`);
	};
	for (let start = 0; start < RUNS; start += AT_ONCE)
		await Promise.all(Array.from({ length: Math.min(AT_ONCE, RUNS - start) }, (_, i) => run(start + i)));
});
