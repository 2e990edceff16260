/**
 * pi 1.6's `ctx.isProjectTrusted()` for protocol extensions: the Node kit and QuickJS answer it from the context
 * snapshot, which pier fills from pi's own answer (pier's trust decision, as trust-settings.ts gives it to pi).
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const RUNTIMES = {
	node: join(REPO_ROOT, "test", "kit", "fixtures", "kit-trust"),
	quickjs: join(REPO_ROOT, "test", "fixtures", "quickjs", "trust"),
};

/** What the `trusted` tool said when pi's model called it, in a project that needs a trust decision. */
async function trustedSays(pkg: string, approve: boolean | undefined): Promise<string> {
	using project = tempDir();
	using agent = tempDir();
	// A project setting is something pier loads from the project only once it is trusted.
	mkdirSync(join(project.path, ".pi"));
	writeFileSync(join(project.path, ".pi", "settings.json"), "{}");
	const pier = await createPierSession({
		cwd: project.path,
		agentDir: agent.path,
		session: { kind: "memory" },
		extensionPaths: [pkg],
		...(approve !== undefined ? { approve } : {}),
	});
	try {
		await pier.session.prompt("trusted {}");
		const text = (pier.session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
		const said = /the trusted tool says: "(.*)"\.$/s.exec(text)?.[1];
		assert.ok(said, text);
		return said;
	} finally {
		await pier.dispose();
	}
}

describe("ctx.isProjectTrusted() in protocol extensions", () => {
	for (const [runtime, pkg] of Object.entries(RUNTIMES)) {
		test(`${runtime}: false in a project nobody trusted, true with --approve`, async () => {
			assert.equal(await trustedSays(pkg, undefined), "trusted=false atStart=false");
			assert.equal(await trustedSays(pkg, true), "trusted=true atStart=true");
		});
	}
});
