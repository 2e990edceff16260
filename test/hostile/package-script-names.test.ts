/**
 * Review of issue 27, finding 2: a script runs "only for a package whose package.json name is in
 * `extensionHost.allowScripts`". The name is whatever the package's own package.json says, and a package published
 * under its own name may ship any package.json it likes in its bundled dependencies. So a user who once allowed a
 * common name (`esbuild`, `sharp`, …) has allowed every package that calls a bundled file by that name; and allowing
 * a package also ran its bundled dependencies' scripts (npm rebuild builds a node's bundle) while pier reported them
 * as skipped. Guarantee: a dependency is allowed by name only when a registry spec asked for it and npm fetched it
 * from the registry as that name; a bundled dependency came in its bundler's tarball, is its bundler's code, and
 * runs, and is reported, with its bundler (never allowed on its own).
 *
 * Real npm against a registry served by the test, the real `pier` bin. Every script appends a line to a marker file.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { mark, marks, npmEnv, type Registry, startRegistry } from "../helpers/npm-registry.js";
import { quickjsExtension, type Sandbox, sandbox } from "../packages/helpers.js";

describe("an allowance names a package, not a package.json anyone can write", () => {
	let registry: Registry;
	let work: Sandbox;
	beforeEach(async () => {
		work = sandbox();
		registry = await startRegistry(work.root);
	});
	afterEach(async () => {
		await registry.close();
		work[Symbol.dispose]();
	});

	test("a dependency fetched from a URL whose package.json says it is an allowed name does not run its script", async () => {
		using box = sandbox();
		Object.assign(box.env, npmEnv(registry, box.root), { PI_OFFLINE: "0" });
		const marker = join(box.root, "MARKER-spoof");
		// The user allowed the real esbuild's postinstall for some other package, long ago.
		writeFileSync(join(box.agent, "settings.json"), JSON.stringify({ extensionHost: { allowScripts: ["esbuild"] } }));
		// The attacker's tarball, on a host of the attacker's (here the test's server): its package.json says esbuild.
		registry.publish({
			name: "esbuild",
			version: "0.0.1",
			scripts: { postinstall: mark(marker, "spoofed-esbuild-postinstall") },
		});
		// A QuickJS-only package, published under its own name, depends on that tarball under the name esbuild.
		registry.publish(
			{
				name: "innocent-ext",
				version: "1.0.0",
				dependencies: { esbuild: `${registry.url}esbuild/-/esbuild-0.0.1.tgz` },
			},
			quickjsExtension("q", "innocent", "innocent_tool", "hi") as Record<string, string>,
		);

		const install = await box.pier(["install", "npm:innocent-ext"]);
		assert.equal(install.code, 0, install.stderr);
		assert.deepEqual(
			marks(marker),
			[],
			`a script of a package that only claims an allowed name ran: ${install.stderr}`,
		);
	});

	test("a bundled dependency's script runs only with its allowed bundler, and is reported as its bundler's", async () => {
		using box = sandbox();
		Object.assign(box.env, npmEnv(registry, box.root), { PI_OFFLINE: "0" });
		const marker = join(box.root, "MARKER-bundle");
		registry.publish(
			{
				name: "host-pkg",
				version: "1.0.0",
				dependencies: { "bundled-dep": "0.0.1" },
				bundleDependencies: ["bundled-dep"],
				scripts: { postinstall: mark(marker, "host-postinstall") },
			},
			{
				...(quickjsExtension("q", "host", "host_tool", "hi") as Record<string, string>),
				"node_modules/bundled-dep/package.json": JSON.stringify({
					name: "bundled-dep",
					version: "0.0.1",
					scripts: { install: mark(marker, "bundled-install") },
				}),
			},
		);
		// Allowing the bundled name alone allows nothing: it is not a package of the registry's.
		writeFileSync(
			join(box.agent, "settings.json"),
			JSON.stringify({ extensionHost: { allowScripts: ["bundled-dep"] } }),
		);
		const first = await box.pier(["install", "npm:host-pkg"]);
		assert.equal(first.code, 0, first.stderr);
		assert.deepEqual(marks(marker), [], "nothing ran: host-pkg is not allowed");
		assert.match(first.stderr + first.stdout, /host-pkg > bundled-dep \(install\)/);

		const install = await box.pier(["install", "npm:host-pkg", "--allow-scripts", "host-pkg"]);
		assert.equal(install.code, 0, install.stderr);
		assert.deepEqual(marks(marker), ["bundled-install", "host-postinstall"]);
		const listed = (await box.pier(["list"])).stdout;
		assert.match(listed, /install scripts ran \(allowed by name\): host-pkg \(postinstall\), host-pkg > bundled-dep/);
		assert.doesNotMatch(listed, /skipped/);
	});
});
