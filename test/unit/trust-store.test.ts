import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { TrustStore, TrustStoreError } from "../../src/extensions/trust-store.js";
import { tempDir } from "../helpers/pier-cli.js";

function dirs(root: string) {
	const agent = join(root, "agent");
	const project = join(root, "work", "project");
	mkdirSync(agent, { recursive: true });
	mkdirSync(join(project, "sub"), { recursive: true });
	return { agent, project: realpathSync(project), work: realpathSync(join(root, "work")) };
}

describe("the trust store (later pi's trust.json)", () => {
	test("writes a flat map of canonical directories, keys sorted, with a trailing newline", () => {
		using tmp = tempDir();
		const { agent, project, work } = dirs(tmp.path);
		const store = new TrustStore(agent);
		store.set(project, false);
		store.set(work, true);
		const text = readFileSync(join(agent, "trust.json"), "utf8");
		assert.equal(text, `${JSON.stringify({ [work]: true, [project]: false }, null, 2)}\n`);
		assert.deepEqual(Object.keys(JSON.parse(text)), [work, project].sort());
		assert.equal(statSync(join(agent, "trust.json")).mode & 0o777, 0o600);
	});

	test("keys are realpaths: a symlinked path and the real one share a decision", () => {
		using tmp = tempDir();
		const { agent, project } = dirs(tmp.path);
		const link = join(tmp.path, "link");
		symlinkSync(project, link);
		const store = new TrustStore(agent);
		store.set(link, true);
		assert.deepEqual(Object.keys(JSON.parse(readFileSync(store.file, "utf8"))), [project]);
		assert.equal(store.get(project), true);
	});

	test("the nearest ancestor with a decision wins; null removes an entry", () => {
		using tmp = tempDir();
		const { agent, project, work } = dirs(tmp.path);
		const store = new TrustStore(agent);
		assert.equal(store.entry(project), undefined);
		store.set(work, true);
		assert.deepEqual(store.entry(join(project, "sub")), { path: work, decision: true });
		store.set(project, false);
		assert.deepEqual(store.entry(join(project, "sub")), { path: project, decision: false });
		assert.equal(store.get(work), true);
		store.set(project, null);
		assert.deepEqual(store.entry(project), { path: work, decision: true });
		assert.equal(JSON.parse(readFileSync(store.file, "utf8"))[project], undefined);
	});

	test("null values on read are no decision (an ancestor's applies)", () => {
		using tmp = tempDir();
		const { agent, project, work } = dirs(tmp.path);
		writeFileSync(join(agent, "trust.json"), JSON.stringify({ [project]: null, [work]: false }));
		assert.deepEqual(new TrustStore(agent).entry(project), { path: work, decision: false });
	});

	test("reads rpi's {version, decisions} form, and writes only the flat form", () => {
		using tmp = tempDir();
		const { agent, project, work } = dirs(tmp.path);
		writeFileSync(join(agent, "trust.json"), JSON.stringify({ version: 1, decisions: { [work]: true } }));
		const store = new TrustStore(agent);
		assert.deepEqual(store.entry(project), { path: work, decision: true });
		store.set(project, false);
		assert.deepEqual(JSON.parse(readFileSync(store.file, "utf8")), { [work]: true, [project]: false });
	});

	for (const [what, text] of [
		["not JSON", "{nope"],
		["an array", "[]"],
		["a string value", '{"/x": "yes"}'],
		["an rpi envelope of another version", '{"version": 2, "decisions": {}}'],
		["the chamber's old form", '{"projects": {"/x": true}}'],
	] as const) {
		test(`a store that is ${what} is an error naming the file, never "trusted"`, () => {
			using tmp = tempDir();
			const { agent, project } = dirs(tmp.path);
			writeFileSync(join(agent, "trust.json"), text);
			const store = new TrustStore(agent);
			const named = (e: unknown) =>
				e instanceof TrustStoreError && e.message.includes(store.file) && /fix it or delete it/.test(e.message);
			assert.throws(() => store.get(project), named);
			assert.throws(() => store.set(project, true), named);
			assert.equal(readFileSync(store.file, "utf8"), text, "a corrupt store is not overwritten");
		});
	}

	test("a held lock (pi's proper-lockfile directory) makes a write wait and then fail with a message", () => {
		using tmp = tempDir();
		const { agent, project } = dirs(tmp.path);
		const store = new TrustStore(agent);
		mkdirSync(join(agent, "trust.json.lock"));
		assert.throws(() => store.set(project, true), /locked by another process .*trust\.json\.lock/);
		// A lock older than proper-lockfile's 10 s is stale: taken over.
		const old = new Date(Date.now() - 60_000);
		utimesSync(join(agent, "trust.json.lock"), old, old);
		store.set(project, true);
		assert.equal(store.get(project), true);
	});

	test("concurrent writers from several processes lose no decision", async () => {
		using tmp = tempDir();
		const { agent } = dirs(tmp.path);
		const module = new URL("../../src/extensions/trust-store.js", import.meta.url).href;
		const writers = Array.from({ length: 6 }, (_, w) => {
			const script = `import { TrustStore } from ${JSON.stringify(module)};
const store = new TrustStore(${JSON.stringify(agent)});
for (let i = 0; i < 15; i++) store.set("/tmp/pier-trust-race/w${w}-" + i, true);`;
			return new Promise<number | null>((done) => {
				const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" });
				child.on("exit", done);
			});
		});
		assert.deepEqual(await Promise.all(writers), [0, 0, 0, 0, 0, 0]);
		assert.equal(new TrustStore(agent).decisions().size, 6 * 15);
	});
});
