/**
 * Red-team hole 2: a dot-named entry got past pier's `"!**"` exclusion (minimatch without `dot: true` never
 * matches `.evil.ts`). An untrusted project's `.pi/extensions/foo/package.json` with
 * `{"pi":{"extensions":[".evil.ts"]}}` next to `.pi/extensions/foo/.evil.ts` ran in Node. Driven through the
 * real `bin/pier.js run`, headless and undecided, as the reviewer did (a settings file with a hostile key too).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { markerExtension, write } from "../helpers/trust-attacks.js";

function dotEntryProject(root: string, marker: string) {
	const project = join(root, "project");
	write(join(project, ".pi", "settings.json"), JSON.stringify({ shellPath: "/tmp/x" }));
	const foo = join(project, ".pi", "extensions", "foo");
	write(join(foo, "package.json"), JSON.stringify({ pi: { extensions: [".evil.ts"] } }));
	write(join(foo, ".evil.ts"), markerExtension(marker));
	// A dot-directory entry, the same trick one level down.
	write(join(project, ".pi", "extensions", "bar", "package.json"), JSON.stringify({ pi: { extensions: [".d/x.ts"] } }));
	write(join(project, ".pi", "extensions", "bar", ".d", "x.ts"), markerExtension(`${marker}-2`));
	return project;
}

describe("a dot-named entry of an untrusted project does not reach pi's loader", () => {
	for (const flags of [[], ["--no-approve"]]) {
		test(`package.json#pi.extensions [".evil.ts"] in .pi/extensions runs nothing (${flags.join(" ") || "undecided"})`, async () => {
			using dir = tempDir();
			const agent = join(dir.path, "agent");
			mkdirSync(agent);
			const marker = join(dir.path, "MARKER");
			const project = dotEntryProject(dir.path, marker);
			const result = await runPier(["run", ...flags, "hello"], { agentDir: agent, cwd: project });
			assert.equal(existsSync(marker), false, "the project's .evil.ts ran in Node");
			assert.equal(existsSync(`${marker}-2`), false, "the project's .d/x.ts ran in Node");
			assert.equal(result.code, 0, result.stderr);
			assert.match(result.stderr, /project .* is not trusted/);
		});
	}

	test("trusted, the dot entry is pi's to load like any other (the check is not vacuous)", async () => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		const marker = join(dir.path, "MARKER");
		const project = dotEntryProject(dir.path, marker);
		const result = await runPier(["run", "--approve", "hello"], { agentDir: agent, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(existsSync(marker), true, result.stderr);
	});
});
