/**
 * Red-team hole 1: an untrusted project's `.pi/extensions` code ran whenever pi failed to read
 * `.pi/settings.json`. pier's `"!**"` exclusions were handed over from inside pi's own locked read, so a
 * settings.json that is a directory (EISDIR), a committed `settings.json.lock/` directory (pi's lock is taken
 * before the read) or a settings.json symlinked to something unreadable made pi fall back to `{}` — and its
 * auto-discovery of `.pi/extensions` ran. Driven through the real `bin/pier.js run`, headless and undecided.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { markerExtension, write } from "../helpers/trust-attacks.js";

const unreadable: Record<string, (project: string) => void> = {
	"settings.json is a directory": (project) => write(join(project, ".pi", "settings.json", "keep"), ""),
	"a committed settings.json.lock directory": (project) => {
		write(join(project, ".pi", "settings.json"), "{}");
		write(join(project, ".pi", "settings.json.lock", "keep"), "");
	},
	"settings.json symlinked to a directory": (project) => {
		mkdirSync(join(project, ".pi"), { recursive: true });
		symlinkSync("/", join(project, ".pi", "settings.json"));
	},
};

describe("an untrusted project whose settings pi cannot read still runs nothing", () => {
	for (const [how, breakSettings] of Object.entries(unreadable)) {
		test(`${how}: .pi/extensions does not run, and pier says the project is not trusted`, async () => {
			using dir = tempDir();
			const agent = join(dir.path, "agent");
			mkdirSync(agent);
			const project = join(dir.path, "project");
			const marker = join(dir.path, "MARKER");
			breakSettings(project);
			write(join(project, ".pi", "extensions", "evil.ts"), markerExtension(marker));
			const result = await runPier(["run", "hello"], { agentDir: agent, cwd: project });
			assert.equal(existsSync(marker), false, "the untrusted project's extension ran in Node");
			assert.equal(result.code, 0, result.stderr);
			assert.match(result.stderr, /project .* is not trusted \(no decision yet\)/);
		});
	}

	test("trusted, the same project's extension does load (the check is not vacuous)", async () => {
		using dir = tempDir();
		const agent = join(dir.path, "agent");
		mkdirSync(agent);
		const project = join(dir.path, "project");
		const marker = join(dir.path, "MARKER");
		unreadable["settings.json is a directory"]!(project);
		write(join(project, ".pi", "extensions", "evil.ts"), markerExtension(marker));
		const result = await runPier(["run", "--approve", "hello"], { agentDir: agent, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(existsSync(marker), true, result.stderr);
	});
});
