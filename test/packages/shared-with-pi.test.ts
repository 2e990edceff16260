/**
 * A host-style source (`git:git.test/owner/repo@v1`, as pi users write it) served offline by a
 * `url.<file://…>.insteadOf https://git.test/` rewrite: pier installs it where pi does, and pi's own
 * DefaultPackageManager finds pier's checkout.
 */
import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { DefaultPackageManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { makeRepo, quickjsExtension, sandbox } from "./helpers.js";

describe("packages shared with pi", () => {
	test("git:host/owner/repo@ref installs at pi's path and pi's package manager sees it", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "repo");
		repo.commit(quickjsExtension("w", "hosted", "hosted_tool", "hosted v1"), "v1");
		appendFileSync(
			box.env.GIT_CONFIG_GLOBAL!,
			`[url "${repo.url.replace(/repo\.git$/, "")}"]\n\tinsteadOf = https://git.test/owner/\n`,
		);
		// Not offline: git.test is a network host as far as pier knows (the rewrite keeps it on this machine).
		box.env.PI_OFFLINE = "";
		const source = "git:git.test/owner/repo@v1";
		const installed = await box.pier(["install", source]);
		assert.equal(installed.code, 0, installed.stderr);
		const checkout = join(box.agent, "git", "git.test", "owner", "repo");
		assert.match(installed.stdout, new RegExp(`at ${checkout}`));
		assert.deepEqual(JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8")).packages, [source]);

		const pi = new DefaultPackageManager({
			cwd: box.home,
			agentDir: box.agent,
			settingsManager: SettingsManager.create(box.home, box.agent),
		});
		assert.equal(pi.getInstalledPath(source, "user"), checkout);
		assert.deepEqual(
			pi.listConfiguredPackages().map((p) => [p.source, p.scope, p.installedPath]),
			[[source, "user", checkout]],
		);

		const run = await box.pier(["run", "hosted_tool {}"]);
		assert.match(run.stdout, /the hosted_tool tool says: "hosted v1"/, run.stderr);
		const listed = JSON.parse((await box.pier(["list", "--json"])).stdout);
		assert.equal(listed.packages[0].identity, "git:git.test/owner/repo");
		assert.equal(listed.extensions[0].package.identity, "git:git.test/owner/repo");
	});
});
