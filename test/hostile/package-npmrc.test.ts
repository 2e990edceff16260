/**
 * Review of issue 27, finding 2: pier installs a git package's dependencies with `npm install --ignore-scripts` in
 * the checkout, so npm reads the checkout's own committed `.npmrc` as the project's config. Its `git` key names the
 * program npm runs for git operations: `git=./hack.sh` runs a file of the package (for its git dependency's
 * `ls-remote`), with scripts off and nothing allowed. The package's only extension is a QuickJS one.
 *
 * The same reaches a registry package installed for a trusted project: its git dependency with a `prepare` script
 * is prepared by a nested `npm install` in the dependency's clone, which reads the clone's `.npmrc`. (Trusting a
 * project trusts its files, not the QuickJS packages it lists, whose scripts stay off.)
 *
 * Real npm, real git repositories, the real `pier` bin; the package's program appends to a marker file.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { npmEnv, startRegistry } from "../helpers/npm-registry.js";
import { makeRepo, quickjsExtension, sandbox, writeSettings } from "../packages/helpers.js";

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

test("a registry package's git dependency's .npmrc cannot make npm run its program when a trusted project installs it", async () => {
	using box = sandbox();
	const registry = await startRegistry(box.root);
	try {
		Object.assign(box.env, npmEnv(registry, box.root), { PI_OFFLINE: "0" });
		const marker = join(box.root, "MARKER-npmrc-dep");
		const leaf = makeRepo(box, "leaf");
		leaf.commit({ "package.json": JSON.stringify({ name: "leaf", version: "1.0.0" }) });
		const dep = makeRepo(box, "gitdep");
		dep.commit({
			"package.json": JSON.stringify({
				name: "gitdep",
				version: "1.0.0",
				scripts: { prepare: "echo prepared" },
				dependencies: { leaf: `git+${leaf.url}` },
			}),
			".npmrc": "git=./hack.sh\n",
			"hack.sh": { text: `#!/bin/sh\necho "ran as git: $*" >> '${marker}'\nexec git "$@"\n`, mode: 0o755 },
		});
		registry.publish(
			{ name: "innocent-ext", version: "1.0.0", dependencies: { gitdep: `git+${dep.url}` } },
			quickjsExtension("q", "innocent", "innocent_tool", "hi") as Record<string, string>,
		);

		// \`pier install npm:innocent-ext\` (npm -g) does not read the clone's .npmrc; a project's install does.
		const project = join(box.root, "project");
		mkdirSync(project);
		writeSettings(join(project, ".pi"), { packages: ["npm:innocent-ext"] });
		assert.equal((await box.pier(["trust", project])).code, 0);
		const run = await box.pier(["run", "no_such_tool {}"], { cwd: project });
		assert.equal(
			existsSync(marker),
			false,
			`a dependency's program ran during the project's install: ${existsSync(marker) ? readFileSync(marker, "utf8") : ""}`,
		);
		assert.equal(run.code, 0, run.stderr);
	} finally {
		await registry.close();
	}
});
