/**
 * The pi-parity suite's fast subset (npm test): six examples of different kinds, pi's CLI against pier's
 * bin in print mode (-p and --mode json) and RPC mode, against the parity model server. Any difference not
 * listed in known.ts fails. The whole suite is `npm run parity`.
 */
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { describe, test } from "node:test";
import { CASES } from "./cases.js";
import { unlisted } from "./known.js";
import { PI_EXAMPLES } from "./programs.js";
import { runCase } from "./suite.js";

/** A tool, a command with a system-prompt hook, a flag, input events, RPC dialogs, state across prompts. */
const SUBSET = ["hello.ts", "pirate.ts", "plan-mode", "input-transform.ts", "rpc-demo.ts", "todo.ts"];

describe("pi parity: a representative subset", { concurrency: 2 }, () => {
	for (const name of SUBSET) {
		const testCase = CASES.find((c) => c.example === name);
		test(`${name}: pier's output, session and model requests are pi's`, async () => {
			assert.ok(testCase, `${name} is a case in cases.ts`);
			const result = await runCase(testCase);
			const differences = unlisted(result);
			assert.deepEqual(differences, [], `${name} differs from pi:\n${JSON.stringify(differences, null, 1)}`);
		});
	}
});

test("the suite's cases cover every example that ships in the pi package", () => {
	const shipped = readdirSync(PI_EXAMPLES)
		.filter((name) => name !== "README.md")
		.sort();
	assert.equal(shipped.length, 78, "pi 1.6's examples (79 entries with the README)");
	assert.deepEqual(CASES.map((c) => c.example).sort(), shipped);
});
