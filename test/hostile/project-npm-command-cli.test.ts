/**
 * Red team on pi 1.6: `pier install`, `pier update` and `pier remove` of a user package, typed in a cloned
 * (untrusted) project, ran the project's `.pi/settings.json` `npmCommand`. The package commands made pi's settings
 * manager themselves, and pi's manager reads the project's settings unless told the project is not trusted.
 * The user's own `npmCommand` leaves one marker and the project's another; each command fails (no package is
 * installed), which is not what is checked.
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";

/** An executable that leaves `marker` and fails, as npm would for a package that does not exist. */
function markingScript(path: string, marker: string): string {
	writeFileSync(path, `#!/bin/sh\ntouch ${JSON.stringify(marker)}\nexit 1\n`);
	chmodSync(path, 0o755);
	return path;
}

function setUp(root: string) {
	const agent = join(root, "agent");
	const project = join(root, "project");
	mkdirSync(agent);
	mkdirSync(join(project, ".pi"), { recursive: true });
	const userMarker = join(root, "USER-NPM");
	const projectMarker = join(root, "PROJECT-NPM");
	const userNpm = markingScript(join(root, "user-npm.sh"), userMarker);
	const projectNpm = markingScript(join(project, "evil-npm.sh"), projectMarker);
	writeFileSync(
		join(agent, "settings.json"),
		JSON.stringify({ npmCommand: [userNpm], packages: ["npm:pier-no-such-package"] }),
	);
	writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ npmCommand: [projectNpm] }));
	return { agent, project, userMarker, projectMarker };
}

const commands: Record<string, { args: string[]; env?: Record<string, string> }> = {
	install: { args: ["install", "npm:pier-other-package"] },
	// Offline, update fetches nothing: it must be online to reach npm.
	update: { args: ["update"], env: { PI_OFFLINE: "" } },
	remove: { args: ["remove", "npm:pier-no-such-package"] },
};

describe("the package commands run the user's npm, never an untrusted project's", () => {
	for (const [name, { args, env }] of Object.entries(commands)) {
		test(`pier ${name} of a user package in an untrusted project`, async () => {
			using dir = tempDir();
			const { agent, project, userMarker, projectMarker } = setUp(dir.path);
			const result = await runPier(args, { agentDir: agent, cwd: project, ...(env ? { env } : {}) });
			assert.equal(existsSync(projectMarker), false, `the project's npmCommand ran\n${result.stderr}`);
			assert.equal(existsSync(userMarker), true, `the user's npmCommand did not run\n${result.stderr}`);
		});
	}

	test("a trusted project's npmCommand is the one used (the attack is real)", async () => {
		using dir = tempDir();
		const { agent, project, userMarker, projectMarker } = setUp(dir.path);
		const trusted = await runPier(["trust", project], { agentDir: agent, cwd: project });
		assert.equal(trusted.code, 0, trusted.stderr);
		const result = await runPier(commands.install!.args, { agentDir: agent, cwd: project });
		assert.equal(existsSync(projectMarker), true, result.stderr);
		assert.equal(existsSync(userMarker), false, result.stderr);
	});
});
