/** The load guard's rule: which paths pi's loader may import for a session (lexical and real paths). */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { refusal } from "../../src/extensions/pi-load-guard.js";
import type { TrustDecision } from "../../src/extensions/trust.js";
import { tempDir } from "../helpers/pier-cli.js";
import { write } from "../helpers/trust-attacks.js";

const decision = (cwd: string, trusted: boolean, source: TrustDecision["source"]): TrustDecision => ({
	cwd,
	trusted,
	source,
	resources: [],
});

describe("what pi's loader may import", () => {
	test("an untrusted project's .pi and .agents, by name or through a symlink, are refused; -e is the user's", () => {
		using dir = tempDir();
		const cwd = join(dir.path, "project");
		write(join(cwd, ".pi", "extensions", "x.ts"), "");
		write(join(cwd, ".agents", "y.ts"), "");
		mkdirSync(join(dir.path, "agent", "extensions"), { recursive: true });
		const link = join(dir.path, "agent", "extensions", "link.ts");
		symlinkSync(join(cwd, ".pi", "extensions", "x.ts"), link);
		const agentDir = join(dir.path, "agent");
		const scope = { cwd, agentDir, trust: () => decision(cwd, false, "undecided") };
		assert.match(refusal(join(cwd, ".pi", "extensions", "x.ts"), scope, false) ?? "", /project is not trusted/);
		assert.match(refusal(join(cwd, ".agents", "y.ts"), scope, false) ?? "", /project is not trusted/);
		assert.match(refusal(link, scope, false) ?? "", /project is not trusted/);
		assert.equal(refusal(join(cwd, ".pi", "extensions", "x.ts"), scope, true), undefined);
		const trusted = { cwd, agentDir, trust: () => decision(cwd, true, "store") };
		assert.equal(refusal(link, trusted, false), undefined);
		// "Nothing to trust" had nothing: what appeared since is not loaded before a reload re-decides.
		const empty = { cwd, agentDir, trust: () => decision(cwd, true, "nothing-to-trust") };
		assert.match(refusal(link, empty, false) ?? "", /project is not trusted/);
	});

	test("anything inside a manifest directory is refused, trusted or not, -e or not", () => {
		using dir = tempDir();
		const cwd = join(dir.path, "project");
		const manifestDir = join(dir.path, "agent", "extensions", "q[1]");
		write(join(manifestDir, "pi-extension.json"), "{}");
		write(join(manifestDir, ".lib", "deep", "node.js"), "");
		const scope = { cwd, agentDir: join(dir.path, "agent"), trust: () => decision(cwd, true, "flag") };
		for (const fromCli of [false, true]) {
			const why = refusal(join(manifestDir, ".lib", "deep", "node.js"), scope, fromCli);
			assert.match(why ?? "", /inside the pier extension directory .*q\[1\]/);
			assert.match(refusal(manifestDir, scope, fromCli) ?? "", /inside the pier extension directory/);
		}
	});
});
