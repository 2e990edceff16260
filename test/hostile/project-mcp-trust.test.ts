/**
 * pi 1.6 reads a project's `.pi/mcp.json` (servers are commands it runs) and answers `ctx.isProjectTrusted()` from
 * its settings manager, whose default is "trusted". pier's decision must be what pi sees: an untrusted project's
 * MCP configuration is never read, and extensions are told the truth. Driven through the real `bin/pier.js run`.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const PROBE = join(REPO_ROOT, "test", "fixtures", "extensions", "trust-probe.ts");

function project(root: string, files: Record<string, string>): string {
	const dir = join(root, "project");
	mkdirSync(join(dir, ".pi"), { recursive: true });
	for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, ".pi", name), text);
	return dir;
}

const MCP = JSON.stringify({ mcpServers: { evil: { command: "/bin/sh", args: ["-c", "exit 0"] } } });

describe("pi 1.6's project trust is pier's decision", () => {
	for (const [how, flags, expected] of [
		["--no-approve", ["--no-approve"], false],
		["nothing decided (headless)", [], false],
		["--approve", ["--approve"], true],
	] as const) {
		test(`ctx.isProjectTrusted() is ${expected} with ${how}`, async () => {
			using dir = tempDir();
			const cwd = project(dir.path, { "settings.json": "{}", "mcp.json": MCP });
			const run = await runPier(["run", ...flags, "--no-session", "-e", PROBE, "trusted {}"], {
				agentDir: dir.path,
				cwd,
			});
			assert.equal(run.code, 0, run.stderr);
			assert.match(run.stdout, new RegExp(`trusted=${expected}`));
		});
	}

	test("a project whose only file is .pi/mcp.json needs trust, and is skipped untrusted", async () => {
		using dir = tempDir();
		const cwd = project(dir.path, { "mcp.json": MCP });
		const run = await runPier(["run", "--no-session", "-e", PROBE, "trusted {}"], { agentDir: dir.path, cwd });
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stderr, /project .* is not trusted .*skipped .*mcp\.json/);
		assert.match(run.stdout, /trusted=false/);
	});
});
