/**
 * Red-team hole 3 (reopening finding 3): a QuickJS manifest directory still reached pi's loader through
 * `package.json#pi.extensions`: an entry in a dot-directory (`.lib/node.js`, which `"!dir/**"` never matches), a
 * directory named with glob characters (`q[1]`, so the pattern matched nothing), and — with the user's own
 * settings.json unreadable — every manifest directory, since pier's exclusions travel in the settings. The code
 * then ran in Node with `process`. Driven through the real `bin/pier.js run`.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { markerExtension, write } from "../helpers/trust-attacks.js";

/** A QuickJS manifest directory whose package.json points pi's loader at `entries` (each leaving a marker). */
function manifestDirWithPiEntries(dir: string, marker: string, entries: string[], entry = "index.js") {
	write(
		join(dir, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id: "qjs", runtime: "quickjs", entry, capabilities: ["tools"] }),
	);
	write(join(dir, "package.json"), JSON.stringify({ name: "qjs", pi: { extensions: entries } }));
	if (!entries.includes(entry)) write(join(dir, entry), "export default function () {}\n");
	for (const e of entries) write(join(dir, e), markerExtension(marker));
}

const REFUSED = /pier: warning: pi's loader will not load .*: it is inside the pier extension directory /;

describe("no file of a manifest directory reaches pi's loader, whatever its package.json says", () => {
	test('a user QuickJS directory with package.json#pi.extensions [".lib/node.js"]', async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		const marker = join(tmp.path, "MARKER");
		manifestDirWithPiEntries(join(agent, "extensions", "qjs"), marker, [".lib/node.js"]);
		const result = await runPier(["run", "hello"], { agentDir: agent });
		assert.equal(existsSync(marker), false, "pi's loader ran .lib/node.js in Node");
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, REFUSED);
	});

	test("a user QuickJS directory named q[1] whose package.json names its entry", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		const marker = join(tmp.path, "MARKER");
		manifestDirWithPiEntries(join(agent, "extensions", "q[1]"), marker, ["main.js"], "main.js");
		const result = await runPier(["run", "hello"], { agentDir: agent });
		assert.equal(existsSync(marker), false, "pi's loader ran q[1]/main.js in Node");
		assert.equal(result.code, 0, result.stderr);
	});

	test("the user's settings.json unreadable (a directory): the manifest directory's index.js stays pier's", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		const marker = join(tmp.path, "MARKER");
		mkdirSync(join(agent, "settings.json"), { recursive: true });
		manifestDirWithPiEntries(join(agent, "extensions", "plain"), marker, ["index.js"]);
		const result = await runPier(["run", "hello"], { agentDir: agent });
		assert.equal(existsSync(marker), false, "pi's loader ran the manifest directory's index.js in Node");
		assert.match(result.stderr, REFUSED);
	});

	test("a trusted project's manifest directory with a dot entry in package.json", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		mkdirSync(agent);
		const project = join(tmp.path, "project");
		const marker = join(tmp.path, "MARKER");
		manifestDirWithPiEntries(join(project, ".pi", "extensions", "qjs"), marker, [".hidden.js"]);
		const result = await runPier(["run", "--approve", "hello"], { agentDir: agent, cwd: project });
		assert.equal(existsSync(marker), false, "pi's loader ran .hidden.js in Node");
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, REFUSED);
	});
});
