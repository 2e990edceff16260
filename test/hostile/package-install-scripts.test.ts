/**
 * Issue 27, finding 2: installing a package ran its npm lifecycle scripts (and its dependencies'), as the user,
 * with no question, even for a package whose only extension is a QuickJS one. Now no script runs unless its
 * package is allowed by name in the global settings; `pier list` says which ran and which were skipped.
 *
 * Real npm against a registry served by the test, real git repositories, the real `pier` bin. Every script appends
 * a line to a marker file, so "nothing ran" is an absent file.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { mark, marks, npmEnv, type Registry, startRegistry } from "../helpers/npm-registry.js";
import { makeRepo, quickjsExtension, type Sandbox, sandbox, writeSettings } from "../packages/helpers.js";

function withNpm(box: Sandbox, registry: Registry): void {
	Object.assign(box.env, npmEnv(registry, box.root), { PI_OFFLINE: "0" });
}

/** The QuickJS-only package and its dependency, each with an install-time script that leaves a mark. */
function publishEvil(registry: Registry, marker: string, version = "1.0.0"): void {
	registry.publish({ name: "evil-dep", version, scripts: { install: mark(marker, `dep-install-${version}`) } });
	const files = quickjsExtension("q", "evil-q", "evil_tool", "hi");
	registry.publish(
		{
			name: "evil-pkg",
			version,
			dependencies: { "evil-dep": `^${version}` },
			scripts: { postinstall: mark(marker, `pkg-postinstall-${version}`) },
		},
		files as Record<string, string>,
	);
}

/** A git package whose own postinstall and prepare, and whose dependency's install, leave marks. */
function evilGitFiles(marker: string, tag: string): Record<string, string> {
	return {
		"package.json": JSON.stringify({
			name: "evil-git",
			version: "1.0.0",
			dependencies: { "evil-dep": "^1.0.0" },
			scripts: { postinstall: mark(marker, `git-postinstall-${tag}`), prepare: mark(marker, `git-prepare-${tag}`) },
		}),
		...(quickjsExtension("g", "evil-g", "evil_git_tool", "hi") as Record<string, string>),
	};
}

async function listed(box: Sandbox, cwd?: string): Promise<Record<string, unknown>[]> {
	const list = await box.pier(["list", "--json"], cwd ? { cwd } : {});
	assert.equal(list.code, 0, list.stderr);
	return (JSON.parse(list.stdout) as { packages: Record<string, unknown>[] }).packages;
}

const UNRECORDED = "evil-dep (where npm fetched it from is not recorded)";
const SKIPPED_USER_WIDE =
	/install scripts skipped: evil-pkg \(postinstall\), evil-dep \(where npm fetched it from is not recorded\) \(install\)/;
const names = (list: unknown) => ((list ?? []) as Array<{ name: string }>).map((p) => p.name).sort();

describe("a package's install scripts run only when allowed by name", () => {
	let registry: Registry;
	let work: Sandbox;
	// Each test publishes its own packages into a registry of its own.
	beforeEach(async () => {
		work = sandbox();
		registry = await startRegistry(work.root);
	});
	afterEach(async () => {
		await registry.close();
		work[Symbol.dispose]();
	});

	test("npm: pier install and pier update run nothing; --allow-scripts runs exactly the named ones it can verify", async () => {
		using box = sandbox();
		withNpm(box, registry);
		const marker = join(box.root, "MARKER-npm");
		publishEvil(registry, marker);

		const install = await box.pier(["install", "npm:evil-pkg"]);
		assert.equal(install.code, 0, install.stderr);
		assert.deepEqual(marks(marker), [], "a script ran on pier install");
		assert.ok(existsSync(join(box.root, "npm-global", "lib", "node_modules", "evil-pkg", "node_modules", "evil-dep")));
		assert.match(install.stderr, SKIPPED_USER_WIDE);
		assert.match(install.stderr, /--allow-scripts evil-pkg \(/);
		let [pkg] = await listed(box);
		assert.deepEqual(names((pkg!.scripts as { skipped: unknown }).skipped), [UNRECORDED, "evil-pkg"]);
		assert.deepEqual((pkg!.scripts as { ran: unknown[] }).ran, []);
		const text = await box.pier(["list"]);
		assert.match(text.stdout, SKIPPED_USER_WIDE);

		publishEvil(registry, marker, "1.1.0");
		const update = await box.pier(["update"]);
		assert.equal(update.code, 0, update.stderr);
		assert.deepEqual(marks(marker), [], "a script ran on pier update");
		assert.match(update.stderr, SKIPPED_USER_WIDE);

		// Allowing one name runs that package's script and not its dependency's.
		const one = await box.pier(["install", "npm:evil-pkg", "--allow-scripts", "evil-pkg"]);
		assert.equal(one.code, 0, one.stderr);
		assert.deepEqual(marks(marker), ["pkg-postinstall-1.1.0"]);
		[pkg] = await listed(box);
		assert.deepEqual(names((pkg!.scripts as { ran: unknown }).ran), ["evil-pkg"]);
		assert.deepEqual(names((pkg!.scripts as { skipped: unknown }).skipped), [UNRECORDED]);
		const settings = JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8"));
		assert.deepEqual(settings.extensionHost.allowScripts, ["evil-pkg"]);

		// A user-wide install's dependency cannot be allowed by a name: npm records no origin for it (npm -g keeps no
		// lockfile), so its package.json name could be anyone's. A project install can (the trusted-project test).
		const both = await box.pier(["install", "npm:evil-pkg", "--allow-scripts", "evil-dep"]);
		assert.equal(both.code, 0, both.stderr);
		assert.ok(!marks(marker).includes("dep-install-1.1.0"), marks(marker).join(","));
		[pkg] = await listed(box);
		assert.deepEqual(names((pkg!.scripts as { ran: unknown }).ran), ["evil-pkg"]);
		assert.deepEqual(names((pkg!.scripts as { skipped: unknown }).skipped), [UNRECORDED]);
		assert.match((await box.pier(["list"])).stdout, /install scripts ran \(allowed by name\): evil-pkg/);
	});

	test("git: the checkout's own postinstall and prepare and its dependency's install run only when allowed", async () => {
		using box = sandbox();
		withNpm(box, registry);
		const marker = join(box.root, "MARKER-git");
		publishEvil(registry, join(box.root, "MARKER-unused"));
		registry.publish({ name: "evil-dep", version: "1.0.0", scripts: { install: mark(marker, "dep-install") } });
		const repo = makeRepo(box, "evil-git");
		repo.commit(evilGitFiles(marker, "v1"));

		const install = await box.pier(["install", repo.url]);
		assert.equal(install.code, 0, install.stderr);
		assert.deepEqual(marks(marker), [], "a script ran on pier install");
		assert.match(install.stderr, /install scripts skipped: evil-git \(postinstall, prepare\), evil-dep \(install\)/);
		let [pkg] = await listed(box);
		assert.deepEqual(names((pkg!.scripts as { skipped: unknown }).skipped), ["evil-dep", "evil-git"]);

		repo.commit(evilGitFiles(marker, "v2"));
		const update = await box.pier(["update"]);
		assert.equal(update.code, 0, update.stderr);
		assert.match(update.stdout, /updated/);
		assert.deepEqual(marks(marker), [], "a script ran on pier update");

		const allow = await box.pier(["install", repo.url, "--allow-scripts", "evil-git,evil-dep"]);
		assert.equal(allow.code, 0, allow.stderr);
		assert.deepEqual(marks(marker), ["dep-install", "git-postinstall-v2", "git-prepare-v2"]);
		[pkg] = await listed(box);
		assert.deepEqual(names((pkg!.scripts as { ran: unknown }).ran), ["evil-dep", "evil-git"]);
		assert.match((await box.pier(["list"])).stdout, /install scripts ran \(allowed by name\): evil-git/);
	});

	test("a trusted project's first run installs its packages with no script, and the project cannot allow any", async () => {
		using box = sandbox();
		withNpm(box, registry);
		const marker = join(box.root, "MARKER-project");
		publishEvil(registry, marker);
		const repo = makeRepo(box, "evil-git");
		repo.commit(evilGitFiles(marker, "v1"));
		const project = join(box.root, "project");
		mkdirSync(project);
		// The project tries to allow its own packages' scripts: only the global settings can.
		writeSettings(join(project, ".pi"), {
			packages: ["npm:evil-pkg", repo.url],
			extensionHost: { allowScripts: ["evil-pkg", "evil-dep", "evil-git"] },
		});
		assert.equal((await box.pier(["trust", project])).code, 0);

		const run = await box.pier(["run", "no_such_tool {}"], { cwd: project });
		assert.equal(run.code, 0, run.stderr);
		assert.ok(existsSync(join(project, ".pi", "npm", "node_modules", "evil-pkg")), run.stderr);
		assert.ok(existsSync(join(project, ".pi", "git", "file")), run.stderr);
		assert.deepEqual(marks(marker), [], "a script ran on a trusted project's install");
		assert.match(run.stderr, /evil-pkg: install scripts skipped: evil-pkg \(postinstall\), evil-dep \(install\)/);
		assert.match(run.stderr, /extensionHost\.allowScripts is ignored/);
		const packages = await listed(box, project);
		for (const pkg of packages)
			assert.ok((pkg.scripts as { skipped: unknown[] }).skipped.length > 0, pkg.source as string);

		// Allowed by name in the global settings, a fresh install runs them.
		rmSync(join(project, ".pi", "npm"), { recursive: true });
		rmSync(join(project, ".pi", "git"), { recursive: true });
		writeSettings(box.agent, { extensionHost: { allowScripts: ["evil-pkg", "evil-dep", "evil-git"] } });
		const again = await box.pier(["run", "no_such_tool {}"], { cwd: project });
		assert.equal(again.code, 0, again.stderr);
		assert.deepEqual(marks(marker), [
			"dep-install-1.0.0",
			"dep-install-1.0.0",
			"git-postinstall-v1",
			"git-prepare-v1",
			"pkg-postinstall-1.0.0",
		]);
		for (const pkg of await listed(box, project))
			assert.deepEqual((pkg.scripts as { skipped: unknown[] }).skipped, [], pkg.source as string);
	});

	test("-e npm:… on pier run is installed by pier with no script, not by pi's temporary install", async () => {
		using box = sandbox();
		withNpm(box, registry);
		const marker = join(box.root, "MARKER-cli");
		publishEvil(registry, marker);
		const run = await box.pier(["run", "-e", "npm:evil-pkg", "no_such_tool {}"]);
		assert.equal(run.code, 0, run.stderr);
		assert.deepEqual(marks(marker), [], `a script ran for -e npm:evil-pkg: ${run.stderr}`);
		assert.ok(existsSync(join(box.agent, "pier-cli-packages", "npm", "node_modules", "evil-pkg")), run.stderr);
		assert.match(run.stderr, /npm:evil-pkg: install scripts skipped: evil-pkg \(postinstall\), evil-dep \(install\)/);
		// Installed once: the next run reuses it and says nothing more.
		const again = await box.pier(["run", "-e", "npm:evil-pkg", "no_such_tool {}"]);
		assert.equal(again.code, 0, again.stderr);
		assert.doesNotMatch(again.stderr, /install scripts skipped/);
		assert.deepEqual(marks(marker), []);
	});

	test("an allowance is a name: a wildcard or an empty name is refused, and allows nothing", async () => {
		using box = sandbox();
		withNpm(box, registry);
		for (const bad of ["*", "evil-*", " "]) {
			const result = await box.pier(["install", "npm:evil-pkg", "--allow-scripts", bad]);
			assert.notEqual(result.code, 0);
			assert.match(result.stderr, /--allow-scripts .* (wildcard|is empty|whitespace)/);
		}
		assert.equal(existsSync(join(box.agent, "settings.json")), false);
		writeFileSync(join(box.agent, "settings.json"), JSON.stringify({ extensionHost: { allowScripts: ["*"] } }));
		const marker = join(box.root, "MARKER-wild");
		publishEvil(registry, marker, "1.2.0");
		const install = await box.pier(["install", "npm:evil-pkg"]);
		assert.equal(install.code, 0, install.stderr);
		assert.deepEqual(marks(marker), []);
	});
});
