/**
 * Red-team hole 5: "nothing to trust" was a permanent `trusted: true`. A session opened in an empty project
 * (`source: nothing-to-trust`) loaded a `.pi/extensions/late.ts` written afterwards on `session.reload()`, with no
 * question. Trust is re-decided at every reload (pi's resource reload and protocol rediscovery): what appeared
 * since is undecided, so untrusted until the user decides (`pier trust`, then a reload). A real pi session.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createPierRuntime } from "../../src/agent/session-factory.js";
import { TrustStore } from "../../src/extensions/trust-store.js";
import { processPackage } from "../helpers/hostile.js";
import { tempDir } from "../helpers/pier-cli.js";
import { markerExtension, write } from "../helpers/trust-attacks.js";

describe("resources that appear in a project after its trust was decided are undecided", () => {
	test("nothing to trust at start, then .pi/extensions/late.ts and a reload: it does not run until trusted", async () => {
		using dir = tempDir();
		const agentDir = join(dir.path, "agent");
		const project = join(dir.path, "project");
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(project, { recursive: true });
		const marker = join(dir.path, "MARKER");
		const procMarker = join(dir.path, "PROC-MARKER");
		const reported: string[] = [];
		const pier = await createPierRuntime({
			cwd: project,
			agentDir,
			session: { kind: "memory" },
			mode: "print",
			onExtensionDiagnostic: (d) => reported.push(d.message),
		});
		try {
			assert.equal(pier.trust.source, "nothing-to-trust");
			write(join(project, ".pi", "extensions", "late.ts"), markerExtension(marker));
			// A late process extension too: protocol rediscovery must not start it either.
			processPackage(
				join(project, ".pi", "extensions"),
				"late-proc",
				`import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(procMarker)}, "ran"); process.exit(0);\n`,
				["tools"],
			);
			await pier.runtime.session.reload();
			assert.equal(existsSync(marker), false, "late.ts ran on reload without a decision");
			assert.equal(existsSync(procMarker), false, "the late process extension started on reload");
			assert.equal(pier.trust.trusted, false);
			assert.equal(pier.trust.source, "undecided");
			assert.equal(reported.filter((m) => /is not trusted \(no decision yet\)/.test(m)).length, 1, reported.join("\n"));

			// The user decides (as `pier trust` would); the next reload loads the project.
			new TrustStore(agentDir).set(project, true);
			await pier.runtime.session.reload();
			assert.equal(pier.trust.trusted, true);
			assert.equal(existsSync(marker), true, "trusted, late.ts should load on reload");
		} finally {
			await pier.dispose();
		}
	});
});
