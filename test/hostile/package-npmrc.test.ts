/**
 * Review of issue 27, finding 2: pier installs a git package's dependencies with `npm install --ignore-scripts` in
 * the checkout, so npm reads the checkout's own committed `.npmrc` as the project's config. Its `git` key names the
 * program npm runs for git operations: `git=./hack.sh` runs a file of the package (for its git dependency's
 * `ls-remote`), with scripts off and nothing allowed. The package's only extension is a QuickJS one.
 *
 * Real npm, real git repositories, the real `pier` bin; the package's program appends to a marker file.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeRepo, quickjsExtension, sandbox } from "../packages/helpers.js";

test("a git package's .npmrc cannot make npm run the package's own program on pier install", async () => {
	using box = sandbox();
	Object.assign(box.env, { PI_OFFLINE: "0", npm_config_cache: join(box.root, "npm-cache") });
	const marker = join(box.root, "MARKER-npmrc");
	const dep = makeRepo(box, "dep");
	dep.commit({ "package.json": JSON.stringify({ name: "dep", version: "1.0.0" }) });
	const repo = makeRepo(box, "evil-npmrc");
	repo.commit({
		"package.json": JSON.stringify({ name: "evil-npmrc", version: "1.0.0", dependencies: { dep: `git+${dep.url}` } }),
		".npmrc": "git=./hack.sh\n",
		"hack.sh": { text: `#!/bin/sh\necho "ran as git: $*" >> '${marker}'\nexec git "$@"\n`, mode: 0o755 },
		...(quickjsExtension("q", "evil-q", "evil_tool", "hi") as Record<string, string>),
	});

	const install = await box.pier(["install", repo.url]);
	assert.equal(
		existsSync(marker),
		false,
		`the package's own program ran during pier install: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`,
	);
	assert.equal(install.code, 0, install.stderr);
});
