/** The grants store: global settings only, bad values named with file and field, locked merge-writes. */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { changeGrants, parseGrants, readGrants } from "../../src/extensions/grants/store.js";
import { hostSettings } from "../../src/extensions/host/settings.js";
import { tempDir } from "../helpers/pier-cli.js";

const FILE = "/home/u/.pi/agent/settings.json";

describe("reading grants", () => {
	test("valid grants are read; nothing configured grants nothing", () => {
		const { grants, problems } = parseGrants({ extensionHost: { grants: { a: ["run", "write"], b: [] } } }, FILE);
		assert.deepEqual(problems, []);
		assert.deepEqual([...grants.get("a")!], ["run", "write"]);
		assert.deepEqual([...grants.get("b")!], []);
		assert.equal(parseGrants({}, FILE).grants.size, 0);
		assert.equal(parseGrants({ extensionHost: { timeouts: {} } }, FILE).grants.size, 0);
	});

	test("bad values are named with file and field, and grant nothing", () => {
		const { grants, problems } = parseGrants(
			{ extensionHost: { grants: { a: ["run", "exec", 3], b: "run", "bad id": ["run"] } } },
			FILE,
		);
		assert.deepEqual([...grants.get("a")!], ["run"]);
		assert.equal(grants.has("b"), false);
		assert.equal(grants.has("bad id"), false);
		assert.deepEqual(problems, [
			`${FILE}: extensionHost.grants["a"][1]: unknown grant "exec" (known grants: run, write, read; ignored)`,
			`${FILE}: extensionHost.grants["a"][2]: unknown grant 3 (known grants: run, write, read; ignored)`,
			`${FILE}: extensionHost.grants["b"] must be an array of grant names such as ["run"] (ignored)`,
			`${FILE}: extensionHost.grants["bad id"]: extension id "bad id" contains unsupported characters (allowed: A-Z a-z 0-9 _ . -) (ignored)`,
		]);
		assert.deepEqual(parseGrants({ extensionHost: { grants: ["run"] } }, FILE).problems, [
			`${FILE}: extensionHost.grants must be an object of extension id → grant names (ignored)`,
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
		const project = { extensionHost: { grants: { a: ["run"] }, timeouts: { loadMs: 7 } } };
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
	test("only extensionHost.grants[id] changes; every other key stays", async () => {
		using dir = tempDir();
		const file = join(dir.path, "settings.json");
		writeFileSync(
			file,
			JSON.stringify({ theme: "x", extensionHost: { environment: { A: "1" }, grants: { o: ["read"] } } }),
		);
		assert.deepEqual(await changeGrants(dir.path, "a", (g) => [...g, "write", "run", "run"]), ["run", "write"]);
		assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), {
			theme: "x",
			extensionHost: { environment: { A: "1" }, grants: { o: ["read"], a: ["run", "write"] } },
		});
		assert.deepEqual(await changeGrants(dir.path, "o", () => []), []);
		assert.deepEqual(JSON.parse(readFileSync(file, "utf8")).extensionHost.grants, { a: ["run", "write"] });
	});

	test("a corrupt file is never overwritten", async () => {
		using dir = tempDir();
		const file = join(dir.path, "settings.json");
		writeFileSync(file, "{ broken");
		await assert.rejects(
			changeGrants(dir.path, "a", () => ["run"]),
			/not valid JSON .*fix it first/,
		);
		assert.equal(readFileSync(file, "utf8"), "{ broken");
	});

	test("writers take turns under pi's settings lock; a stale lock is taken over", async () => {
		using dir = tempDir();
		const ids = Array.from({ length: 12 }, (_, i) => `ext${i}`);
		await Promise.all(ids.map((id) => changeGrants(dir.path, id, () => ["run"])));
		const grants = JSON.parse(readFileSync(join(dir.path, "settings.json"), "utf8")).extensionHost.grants;
		assert.deepEqual(Object.keys(grants).sort(), [...ids].sort());

		const lock = join(dir.path, "settings.json.lock");
		mkdirSync(lock);
		const old = (Date.now() - 60_000) / 1000;
		utimesSync(lock, old, old);
		assert.deepEqual(await changeGrants(dir.path, "late", () => ["read"]), ["read"]);
	});
});
