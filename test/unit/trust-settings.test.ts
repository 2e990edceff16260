/** The settings pi sees through pier's storage wrapper, and what pi's writes leave on disk. */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { decideProjectTrust } from "../../src/extensions/trust.js";
import { settingsForTrust } from "../../src/extensions/trust-settings.js";
import { tempDir } from "../helpers/pier-cli.js";

const HOSTILE = {
	shellPath: "/project/evil.sh",
	shellCommandPrefix: "touch x;",
	npmCommand: ["/project/evil.sh"],
	packages: ["npm:evil"],
	extensions: ["./ext.ts"],
	extensionHost: { timeouts: { invocationMs: 1 } },
	theme: "project-theme",
};

function setup(root: string) {
	const agentDir = join(root, "agent");
	const cwd = join(root, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(join(cwd, ".pi"), { recursive: true });
	writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify(HOSTILE));
	writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ theme: "user-theme", extensions: ["./mine.ts"] }));
	return { agentDir, cwd };
}

const projectFile = (cwd: string) => JSON.parse(readFileSync(join(cwd, ".pi", "settings.json"), "utf8"));

describe("the settings pi sees for a project", () => {
	test("untrusted: pi reads not one key of the project's file, and refuses to write it", async () => {
		using dir = tempDir();
		const { agentDir, cwd } = setup(dir.path);
		const trust = decideProjectTrust(cwd, { agentDir, approve: false });
		const settings = settingsForTrust({ cwd, agentDir, trust });
		// pi 1.6 is told the project is untrusted: it reads nothing of the project's file.
		assert.deepEqual(settings.getProjectSettings(), {});
		assert.equal(settings.isProjectTrusted(), false);
		assert.equal(settings.getShellPath(), undefined);
		assert.equal(settings.getShellCommandPrefix(), undefined);
		assert.equal(settings.getNpmCommand(), undefined);
		assert.equal(settings.getTheme(), "user-theme");
		// And it refuses to write it (as `pi config` would try): the file stays as it was.
		assert.throws(() => settings.setProjectExtensionPaths(["./added.ts"]), /Project is not trusted/);
		await settings.flush();
		assert.deepEqual(projectFile(cwd), HOSTILE);
	});

	test("trusted: the project's settings apply, and a global write leaves no pier pattern behind", async () => {
		using dir = tempDir();
		const { agentDir, cwd } = setup(dir.path);
		// A manifest directory in the user's extensions: pi's view of the global scope excludes it.
		mkdirSync(join(agentDir, "extensions", "qjs"), { recursive: true });
		writeFileSync(join(agentDir, "extensions", "qjs", "pi-extension.json"), "{}");
		const trust = decideProjectTrust(cwd, { agentDir, approve: true });
		const settings = settingsForTrust({ cwd, agentDir, trust });
		assert.equal(settings.getShellPath(), "/project/evil.sh");
		const globalExtensions = settings.getGlobalSettings().extensions ?? [];
		assert.ok(globalExtensions.includes(`!${join(agentDir, "extensions", "qjs")}/**`));
		assert.ok(globalExtensions.includes(`-${join(agentDir, "extensions", "qjs", "index.js")}`));
		settings.setTheme("other");
		settings.setExtensionPaths([...globalExtensions, "./new.ts"]);
		await settings.flush();
		assert.deepEqual(JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8")), {
			theme: "other",
			extensions: ["./mine.ts", "./new.ts"],
		});
	});
});
