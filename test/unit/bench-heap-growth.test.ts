import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, test } from "node:test";
import { bytesByOwner, growthByOwner, HeapProbe } from "../../bench/heap-growth.js";
import { tempDir } from "../helpers/pier-cli.js";

/** A real heap snapshot of a Node process holding `entries` records in a named class's Map, one in an array. */
function snapshotHolding(dir: string, name: string, entries: number): string {
	const file = join(dir, `${name}.heapsnapshot`);
	const script = `
		class SessionIndex { constructor() { this.byId = new Map(); } }
		const index = new SessionIndex();
		for (let i = 0; i < ${entries}; i++) index.byId.set("id-" + i, { id: "id-" + i, text: "entry " + i, parts: [i, i + 1] });
		const loose = [];
		for (let i = 0; i < 1000; i++) loose.push({ n: i });
		globalThis.keep = { index, loose };
		require("node:v8").writeHeapSnapshot(${JSON.stringify(file)});
	`;
	const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
	assert.equal(result.status, 0, result.stderr);
	return file;
}

describe("the soak's heap probe", () => {
	test("charges records to the class that holds them, through its Map, and reports what grew", () => {
		using dir = tempDir();
		const small = snapshotHolding(dir.path, "small", 1_000);
		const large = snapshotHolding(dir.path, "large", 20_000);
		const owners = bytesByOwner(large);
		const [top] = [...owners].sort((a, b) => b[1] - a[1]);
		assert.equal(top?.[0], "SessionIndex.byId", `largest owner: ${top?.[0]}`);
		assert.ok(top![1] > 20_000 * 40, `${top![1]} bytes for 20,000 records`);
		const growth = growthByOwner(small, large, 3);
		assert.equal(growth[0]?.owner, "SessionIndex.byId");
		// 19,000 more records of several objects each: well over a MiB, and nearly all of the growth.
		assert.ok(growth[0]!.mib > 1, JSON.stringify(growth));
		assert.ok(
			growth.slice(1).every((g) => g.mib < growth[0]!.mib / 10),
			JSON.stringify(growth),
		);
	});

	test("a hold writes the heap once every session waits or has finished, then lets them go on", async () => {
		using dir = tempDir();
		const written: string[] = [];
		const probe = new HeapProbe(dir.path, 3, async (path) => {
			written.push(path);
		});
		await probe.beforeTurn(0); // nothing held: a turn starts at once
		assert.equal(written.length, 0);
		probe.hold("first-minute");
		let released = 0;
		const first = probe.beforeTurn(0).then(() => released++);
		const second = probe.beforeTurn(1).then(() => released++);
		await new Promise((done) => setImmediate(done));
		assert.deepEqual([written.length, released], [0, 0], "nothing is written while a session is mid-turn");
		await probe.done(2);
		await Promise.all([first, second]);
		assert.deepEqual(written, [join(dir.path, "first-minute.heapsnapshot")]);
		assert.equal(released, 2);
		await probe.beforeTurn(0);
		assert.equal(written.length, 1, "after the hold, turns go on without another snapshot");
		assert.deepEqual(probe.files, written);
	});
});
