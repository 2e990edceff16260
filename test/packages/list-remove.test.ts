/** `pier list --json`'s documented shape, that listing starts and installs nothing, and `pier remove`. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { makeRepo, processExtension, quickjsExtension, sandbox, tsExtension, writeSettings } from "./helpers.js";

const TOP = ["version", "cwd", "trust", "packages", "extensions", "policy"];
const PACKAGE = ["scope", "source", "identity", "kind", "state", "path", "pinned", "revision", "filtered", "standing"];
const EXTENSION = ["id", "kind", "origin", "scope", "package", "path", "state", "capabilities"];

describe("pier list", () => {
	test("--json has the documented shape: trust, packages with pinned and actual ref, extensions of every origin", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "listed");
		repo.commit(
			{
				...quickjsExtension("q", "listed-qjs", "q_tool", "q"),
				...processExtension("p", "listed-proc", "p_tool", "p"),
				...tsExtension("t", "t_tool", "t"),
			},
			"v1",
		);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		// A package's extension is granted by its directory (grants bind to directory and code).
		const before = JSON.parse((await box.pier(["list", "--json"])).stdout) as {
			extensions: { id: string; path: string }[];
		};
		const qjsDir = before.extensions.find((e) => e.id === "listed-qjs")!.path;
		const granted = await box.pier(["grant", qjsDir, "read"]);
		assert.equal(granted.code, 0, granted.stderr);
		// A user extension directory next to the package.
		const userExt = join(box.agent, "extensions");
		mkdirSync(userExt, { recursive: true });
		const own = quickjsExtension("mine", "mine", "mine_tool", "mine");
		for (const [path, text] of Object.entries(own)) {
			const file = join(userExt, path.replace(/^extensions\//, ""));
			mkdirSync(dirname(file), { recursive: true });
			(await import("node:fs")).writeFileSync(file, text as string);
		}

		const cliTs = join(box.root, "cli-ext.ts");
		(await import("node:fs")).writeFileSync(cliTs, "export default function () {}\n");
		const result = await box.pier(["list", "--json", "-e", cliTs]);
		assert.equal(result.code, 0, result.stderr);
		const model = JSON.parse(result.stdout);
		assert.deepEqual(Object.keys(model), TOP);
		assert.equal(model.version, 1);
		assert.deepEqual(model.trust, { trusted: true, source: "nothing-to-trust", resources: [] });
		assert.equal(model.packages.length, 1);
		const pkg = model.packages[0];
		assert.deepEqual(Object.keys(pkg), PACKAGE);
		assert.equal(pkg.state, "installed");
		assert.equal(pkg.pinned, "v1");
		assert.match(pkg.revision, /^[0-9a-f]{40}$/);
		assert.equal(pkg.kind, "git");

		const byId = new Map<string, Record<string, unknown>>(model.extensions.map((e: { id: string }) => [e.id, e]));
		const qjs = byId.get("listed-qjs")!;
		assert.deepEqual(Object.keys(qjs), EXTENSION);
		assert.deepEqual(qjs.capabilities, { declared: ["tools"], uiDeclared: [], granted: ["read"] });
		assert.deepEqual(qjs.package, {
			source: `${repo.url}@v1`,
			identity: pkg.identity,
			pinned: "v1",
			revision: pkg.revision,
		});
		assert.equal(byId.get("listed-proc")!.kind, "process");
		assert.equal(byId.get("t")!.kind, "typescript");
		assert.deepEqual(
			[byId.get("mine")!.origin, byId.get("mine")!.kind, byId.get("mine")!.state],
			["user", "quickjs", "enabled"],
		);
		assert.deepEqual(
			[byId.get("cli-ext")!.origin, byId.get("cli-ext")!.kind, byId.get("cli-ext")!.state],
			["cli", "typescript", "enabled"],
		);
	});

	test("starts nothing and installs nothing: a missing package is listed as missing", async () => {
		using box = sandbox();
		const markers = join(box.root, "markers");
		mkdirSync(markers);
		const repo = makeRepo(box, "quiet");
		repo.commit(
			{
				"extensions/proc/pi-extension.json": JSON.stringify({
					schemaVersion: 1,
					id: "quiet",
					executable: "./main.mjs",
				}),
				"extensions/proc/main.mjs": {
					mode: 0o755,
					text: `#!${process.execPath}\nrequire("node:fs").writeFileSync(${JSON.stringify(join(markers, "STARTED"))}, "");\n`,
				},
			},
			"v1",
		);
		writeSettings(box.agent, { packages: [`${repo.url}@v1`] });
		const missing = JSON.parse((await box.pier(["list", "--json"])).stdout);
		assert.equal(missing.packages[0].state, "missing");
		assert.equal(existsSync(join(box.agent, "git")), false, "pier list cloned");
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const listed = await box.pier(["list"]);
		assert.match(listed.stdout, /enabled +quiet \[process\] user package file:/);
		assert.deepEqual(readdirSync(markers), [], "pier list started an extension");
	});
});

describe("pier list --check", () => {
	test("starts each process and QuickJS extension through its handshake and reports the one that fails", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "checked");
		repo.commit(
			{
				...quickjsExtension("q", "ok-qjs", "q_tool", "q"),
				...processExtension("p", "ok-proc", "p_tool", "p"),
				"extensions/dies/pi-extension.json": JSON.stringify({ schemaVersion: 1, id: "dies", executable: "./main.mjs" }),
				"extensions/dies/main.mjs": { mode: 0o755, text: `#!${process.execPath}\nprocess.exit(3);\n` },
			},
			"v1",
		);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const quiet = JSON.parse((await box.pier(["list", "--json"])).stdout);
		assert.ok(quiet.extensions.every((e: { state: string; checked?: boolean }) => e.state === "enabled" && !e.checked));
		const result = await box.pier(["list", "--json", "--check"]);
		assert.equal(result.code, 0, result.stderr);
		const byId = new Map<string, { state: string; checked?: boolean; reason?: string }>(
			JSON.parse(result.stdout).extensions.map((e: { id: string }) => [e.id, e]),
		);
		assert.deepEqual([byId.get("ok-qjs")?.state, byId.get("ok-qjs")?.checked], ["enabled", true]);
		assert.deepEqual([byId.get("ok-proc")?.state, byId.get("ok-proc")?.checked], ["enabled", true]);
		assert.equal(byId.get("dies")?.state, "failed");
		assert.match(byId.get("dies")?.reason ?? "", /^failed to start: /);
	});
});

describe("pier remove", () => {
	test("removes the settings entry and leaves no checkout behind", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "gone");
		repo.commit(quickjsExtension("g", "gone", "gone_tool", "g"), "v1");
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const checkout = join(box.agent, "git", "file", repo.bare.replace(/\.git$/, ""));
		assert.ok(existsSync(checkout));
		// Matched by identity: the ref does not have to be the one installed.
		const removed = await box.pier(["remove", repo.url]);
		assert.equal(removed.code, 0, removed.stderr);
		assert.match(removed.stdout, /removed .*gone\.git@v1 \(user\)/);
		assert.equal(existsSync(checkout), false);
		assert.deepEqual(readdirSync(join(box.agent, "git")), [".gitignore"], "empty parent directories are pruned");
		assert.deepEqual(JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8")).packages, []);
		const again = await box.pier(["remove", repo.url]);
		assert.equal(again.code, 2);
		assert.match(again.stderr, /no user package matches/);
	});
});
