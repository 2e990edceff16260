/**
 * Low finding: "some errors do not name their extension (`spawn E2BIG`)". A process extension that cannot be
 * started is reported with its id, its manifest and what to do, and the run goes on without it.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";

function extension(root: string, id: string, script: string, args: string[] = []): string {
	const dir = join(root, id);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "main.sh"), script, { mode: 0o755 });
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id, executable: "./main.sh", arguments: args, capabilities: ["tools"] }),
	);
	return dir;
}

for (const env of [{}, { PIER_EXTENSION_CGROUPS: "off" }] as Record<string, string>[]) {
	describe(`process extensions that cannot start${"PIER_EXTENSION_CGROUPS" in env ? " (no cgroup)" : ""}`, () => {
		test("E2BIG names the extension, its manifest and the remedy", async () => {
			using dir = tempDir();
			// One argument past Linux's 128 KiB per-string limit: execve refuses with E2BIG.
			const ext = extension(dir.path, "too-big", "#!/bin/sh\nexit 0\n", ["x".repeat(200_000)]);
			const result = await runPier(["run", "-e", ext, "hello"], { agentDir: dir.path, env });
			assert.equal(result.code, 0, result.stderr);
			assert.match(result.stderr, /extension too-big \(.*too-big\/pi-extension\.json\)/);
			assert.match(result.stderr, /E2BIG: its arguments and environment are too large/);
			assert.doesNotMatch(result.stderr, /^pier: error: spawn E2BIG$/m);
		});

		test("a missing interpreter (ENOENT) names the extension, its manifest and the remedy", async () => {
			using dir = tempDir();
			const ext = extension(dir.path, "no-interpreter", "#!/nonexistent/interpreter\n");
			const result = await runPier(["run", "-e", ext, "hello"], { agentDir: dir.path, env });
			assert.equal(result.code, 0, result.stderr);
			assert.match(result.stderr, /extension no-interpreter \(.*no-interpreter\/pi-extension\.json\)/);
			assert.match(result.stderr, /could not start .*main\.sh: ENOENT: the executable or its interpreter/);
		});
	});
}
