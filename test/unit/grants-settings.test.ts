/** The grants store: global settings only, bad values named with file and field, locked merge-writes. */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { changeGrants, parseGrants, readGrants } from "../../src/extensions/grants/store.js";
import { hostSettings } from "../../src/extensions/host/settings.js";
import { tempDir } from "../helpers/pier-cli.js";

const FILE = "/home/u/.pi/agent/settings.json";

const D = `sha256:${"a".repeat(64)}`;
const bound = (grants: unknown[], dir = "/home/u/.pi/agent/extensions/a") => ({ dir, digest: D, grants });

describe("reading grants", () => {
	test("valid grants are read with their binding; nothing configured grants nothing", () => {
		const { grants, problems } = parseGrants(
			{ extensionHost: { grants: { a: bound(["run", "write"]), b: bound([], "/x/b") } } },
			FILE,
		);
		assert.deepEqual(problems, []);
		assert.deepEqual([...grants.get("a")!.grants], ["run", "write"]);
		assert.equal(grants.get("a")!.dir, "/home/u/.pi/agent/extensions/a");
		assert.equal(grants.get("a")!.digest, D);
		assert.deepEqual([...grants.get("b")!.grants], []);
		assert.equal(parseGrants({}, FILE).grants.size, 0);
		assert.equal(parseGrants({ extensionHost: { timeouts: {} } }, FILE).grants.size, 0);
	});

	test("bad values are named with file and field, and grant nothing", () => {
		const { grants, problems } = parseGrants(
			{
				extensionHost: {
					grants: {
						a: bound(["run", "exec", 3]),
						b: "run",
						c: { dir: "relative/dir", digest: D, grants: ["run"] },
						d: { dir: "/x", digest: "md5:1", grants: ["run"] },
						"bad id": bound(["run"]),
					},
				},
			},
			FILE,
		);
		assert.deepEqual([...grants.get("a")!.grants], ["run"]);
		for (const id of ["b", "c", "d", "bad id"]) assert.equal(grants.has(id), false, id);
		const shape = `must be {"dir": "<absolute directory>", "digest": "sha256:…", "grants": [...]} as pier grant writes it (ignored)`;
		assert.deepEqual(problems, [
			`${FILE}: extensionHost.grants["a"].grants[1]: unknown grant "exec" (known grants: run, write, read, net; ignored)`,
			`${FILE}: extensionHost.grants["a"].grants[2]: unknown grant 3 (known grants: run, write, read, net; ignored)`,
			`${FILE}: extensionHost.grants["b"] ${shape}`,
			`${FILE}: extensionHost.grants["c"] ${shape}`,
			`${FILE}: extensionHost.grants["d"] ${shape}`,
			`${FILE}: extensionHost.grants["bad id"]: extension id "bad id" contains unsupported characters (allowed: A-Z a-z 0-9 _ . -) (ignored)`,
		]);
		assert.deepEqual(parseGrants({ extensionHost: { grants: ["run"] } }, FILE).problems, [
			`${FILE}: extensionHost.grants must be an object of extension id → {dir, digest, grants} (ignored)`,
		]);
	});

	test("the old id-only form grants nothing, and says how to grant again", () => {
		const { grants, problems } = parseGrants({ extensionHost: { grants: { formatter: ["run", "bogus"] } } }, FILE);
		assert.equal(grants.size, 0);
		assert.deepEqual(problems, [
			`${FILE}: extensionHost.grants["formatter"]: a bare list of grants (the old form) grants nothing: a grant is bound to the extension's directory and code; give it again with: pier grant formatter run`,
		]);
	});

	test("a settings file that is not JSON grants nothing and says so", () => {
		using dir = tempDir();
		writeFileSync(join(dir.path, "settings.json"), "{ not json");
		const { grants, problems } = readGrants(dir.path);
		assert.equal(grants.size, 0);
		assert.match(problems[0]!, /settings\.json: not valid JSON .*; nothing is granted/);
		assert.deepEqual(readGrants(join(dir.path, "missing")).problems, []);
	});

	test("a project's settings cannot grant: ignored with a warning, the rest of extensionHost kept", () => {
		const global = { extensionHost: { timeouts: { hookMs: 5 } } };
		const project = { extensionHost: { grants: { a: bound(["run"]) }, timeouts: { loadMs: 7 } } };
		const { settings, problems } = hostSettings(global, project);
		assert.deepEqual(settings.timeouts, { hookMs: 5, loadMs: 7 });
		assert.equal("grants" in settings, false);
		assert.deepEqual(problems, [
			"project settings.json extensionHost.grants is ignored: only the global settings grant extensions powers (use pier grant)",
		]);
		// A bad grants value in the global settings does not void its timeouts (store.ts reports it).
		assert.deepEqual(hostSettings({ extensionHost: { grants: 5, timeouts: { hookMs: 5 } } }, {}).problems, []);
	});
});

describe("changing grants", () => {
	const here = { dir: "/ext/a", digest: D };
	test("only extensionHost.grants[id] changes; every other key stays", async () => {
		using dir = tempDir();
		const file = join(dir.path, "settings.json");
		const o = bound(["read"], "/ext/o");
		writeFileSync(file, JSON.stringify({ theme: "x", extensionHost: { environment: { A: "1" }, grants: { o } } }));
		assert.deepEqual(await changeGrants(dir.path, "a", (g) => [...g, "write", "run", "run"], here), ["run", "write"]);
		assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), {
			theme: "x",
			extensionHost: { environment: { A: "1" }, grants: { o, a: { ...here, grants: ["run", "write"] } } },
		});
		// Revoking by id keeps the binding; taking everything removes the entry.
		assert.deepEqual(await changeGrants(dir.path, "a", (g) => [...g].filter((x) => x !== "run")), ["write"]);
		assert.deepEqual(JSON.parse(readFileSync(file, "utf8")).extensionHost.grants.a, { ...here, grants: ["write"] });
		assert.deepEqual(await changeGrants(dir.path, "o", () => []), []);
		assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, "utf8")).extensionHost.grants), ["a"]);
	});

	test("granting to another directory or changed code starts from nothing", async () => {
		using dir = tempDir();
		await changeGrants(dir.path, "a", () => ["run", "write"], here);
		const moved = { dir: "/elsewhere/a", digest: D };
		assert.deepEqual(await changeGrants(dir.path, "a", (g) => [...g, "read"], moved), ["read"]);
		const changed = { dir: "/elsewhere/a", digest: `sha256:${"b".repeat(64)}` };
		assert.deepEqual(await changeGrants(dir.path, "a", (g) => [...g, "net"], changed), ["net"]);
		await assert.rejects(
			changeGrants(dir.path, "never", () => ["run"]),
			/has no grants to change/,
		);
	});

	test("a corrupt file is never overwritten", async () => {
		using dir = tempDir();
		const file = join(dir.path, "settings.json");
		writeFileSync(file, "{ broken");
		await assert.rejects(
			changeGrants(dir.path, "a", () => ["run"], { dir: "/ext/a", digest: D }),
			/not valid JSON .*fix it first/,
		);
		assert.equal(readFileSync(file, "utf8"), "{ broken");
	});

	test("writers take turns under pi's settings lock; a stale lock is taken over", async () => {
		using dir = tempDir();
		const ids = Array.from({ length: 12 }, (_, i) => `ext${i}`);
		await Promise.all(ids.map((id) => changeGrants(dir.path, id, () => ["run"], { dir: `/ext/${id}`, digest: D })));
		const grants = JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8")).extensionHost.grants;
		assert.deepEqual(Object.keys(grants).sort(), [...ids].sort());

		const lock = join(dir.path, "settings.json.lock");
		mkdirSync(lock);
		const old = (Date.now() - 60_000) / 1000;
		utimesSync(lock, old, old);
		assert.deepEqual(await changeGrants(dir.path, "late", () => ["read"], { dir: "/ext/late", digest: D }), ["read"]);
	});
});
