/**
 * Finding 3: a directory in `<agentDir>/extensions/` holding a QuickJS `pi-extension.json` with
 * `entry: "index.js"` was also loaded by pi's own loader, running the same code in Node with `process`.
 * The guest's code is also a valid pi extension (a default-exported factory), as an attacker would write it:
 * in Node it leaves a marker file; in QuickJS its tool says `typeof process` is "undefined".
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";

function doubleFacedExtension(root: string, marker: string): string {
	const dir = join(root, "probe");
	mkdirSync(dir, { recursive: true });
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({
			schemaVersion: 1,
			id: "qjs-double",
			runtime: "quickjs",
			entry: "index.js",
			capabilities: ["tools"],
		}),
	);
	writeFileSync(
		join(dir, "index.js"),
		`export default function (pi) {
	if (typeof process !== "undefined") {
		import("node:fs").then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, "loaded in Node"));
	}
	pi.registerTool({
		name: "whereami",
		label: "whereami",
		description: "reports typeof process",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "process is " + typeof process }] }),
	});
}
`,
	);
	return dir;
}

describe("a pi-extension.json directory is pier's alone", () => {
	test("a user QuickJS extension with index.js runs only in the sandbox, never in pi's loader", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		const marker = join(tmp.path, "NODE-MARKER");
		doubleFacedExtension(join(agent, "extensions"), marker);
		const result = await runPier(["run", "whereami {}"], { agentDir: agent });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /process is undefined/);
		assert.doesNotMatch(result.stdout, /process is object/);
		assert.equal(existsSync(marker), false, "pi's loader ran the extension in Node");
		assert.doesNotMatch(result.stderr, /conflict|already registered|failed to load/i);
	});

	test("the same directory in a trusted project's .pi/extensions is not handed to pi either", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		mkdirSync(agent);
		const project = join(tmp.path, "project");
		const marker = join(tmp.path, "NODE-MARKER");
		doubleFacedExtension(join(project, ".pi", "extensions"), marker);
		const result = await runPier(["run", "--approve", "whereami {}"], { agentDir: agent, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /process is undefined/);
		assert.equal(existsSync(marker), false, "pi's loader ran the extension in Node");
	});

	test("-e with a file inside a manifest directory is refused, naming the directory to pass", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		mkdirSync(agent);
		const marker = join(tmp.path, "NODE-MARKER");
		const dir = doubleFacedExtension(join(tmp.path, "elsewhere"), marker);
		const result = await runPier(["run", "-e", join(dir, "index.js"), "whereami {}"], { agentDir: agent });
		assert.equal(existsSync(marker), false, "pi's loader ran the extension in Node");
		assert.match(result.stderr, new RegExp(`inside the pier extension directory ${dir}.*pass -e ${dir}`));
		const asDir = await runPier(["run", "-e", dir, "whereami {}"], { agentDir: agent });
		assert.match(asDir.stdout, /process is undefined/);
		assert.equal(existsSync(marker), false);
	});

	test("a user settings.json entry pointing at the directory does not reach pi's loader", async () => {
		using tmp = tempDir();
		const agent = join(tmp.path, "agent");
		mkdirSync(agent);
		const marker = join(tmp.path, "NODE-MARKER");
		const dir = doubleFacedExtension(join(tmp.path, "elsewhere"), marker);
		writeFileSync(join(agent, "settings.json"), JSON.stringify({ extensions: [dir, join(dir, "index.js")] }));
		const result = await runPier(["run", "hello"], { agentDir: agent });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(existsSync(marker), false, "pi's loader ran the extension in Node");
	});
});
