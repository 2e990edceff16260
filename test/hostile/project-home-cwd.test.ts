/**
 * The other side of the load guard: a session whose project is the directory holding the user's agent directory
 * (pier run in `~`, where `~/.pi` is the project's config dir and `~/.pi/agent` the user's) keeps the user's own
 * extensions and skills, whatever the project's decision. Only the project's files are gated.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createPierRuntime } from "../../src/agent/session-factory.js";
import { tempDir } from "../helpers/pier-cli.js";
import { markerExtension, write } from "../helpers/trust-attacks.js";

describe("the user's agent directory inside the project's .pi", () => {
	for (const approve of [undefined, false]) {
		test(`cwd is the agent directory's grandparent (${approve === false ? "--no-approve" : "nothing to trust"}): the user's extension and skill load`, async () => {
			using dir = tempDir();
			const home = dir.path;
			const agentDir = join(home, ".pi", "agent");
			const marker = join(home, "USER-MARKER");
			write(join(agentDir, "extensions", "mine.ts"), markerExtension(marker));
			write(join(agentDir, "skills", "mine", "SKILL.md"), "---\nname: mine\ndescription: the user's\n---\nx\n");
			const pier = await createPierRuntime({
				cwd: home,
				agentDir,
				session: { kind: "memory" },
				...(approve === undefined ? {} : { approve }),
			});
			try {
				assert.equal(existsSync(marker), true, pier.diagnostics.map((d) => d.message).join("\n"));
				const skills = pier.runtime.services.resourceLoader.getSkills().skills.map((s) => s.name);
				assert.deepEqual(skills, ["mine"]);
				assert.ok(!pier.diagnostics.some((d) => /will not load/.test(d.message)));
			} finally {
				await pier.dispose();
			}
		});
	}
});
