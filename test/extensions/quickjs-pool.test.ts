/**
 * Where QuickJS guests are placed (runtimes/quickjs/pool.ts): at most GUESTS_PER_WORKER to a worker thread, a
 * worker with no guest left goes, and a guest's place is reused once it has gone.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { GUESTS_PER_WORKER, quickjsWorkers } from "../../src/extensions/runtimes/quickjs/pool.js";
import { quickjsPackage } from "../helpers/hostile.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

const source = (n: number) => `
export default function (pi) {
	pi.registerTool({ name: "who_${n}", label: "who", description: "who", parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: "guest ${n}" }] }) });
}
`;
const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

async function settled(check: () => boolean): Promise<void> {
	const started = Date.now();
	while (!check() && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
}

describe("QuickJS guest placement", () => {
	test(`${GUESTS_PER_WORKER + 1} guests need two workers; each answers; the workers go when the guests do`, async () => {
		using dir = tempDir("pier-quickjs-pool-");
		const count = GUESTS_PER_WORKER + 1;
		const ids = Array.from({ length: count }, (_, n) => `qjs-pool-${n}`);
		const { host } = testHost();
		const before = quickjsWorkers().length;
		const specs = ids.map((id, n) => {
			const path = quickjsPackage(dir.path, id, source(n), ["tools"]);
			return quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, deadlineMs: 5_000 });
		});
		const report = await host.load(specs);
		assert.deepEqual(report.failures, []);
		const homes = quickjsWorkers().filter((w) => w.guests.some((id) => ids.includes(id)));
		assert.ok(homes.length >= 2, `${count} guests on ${homes.length} worker(s)`);
		for (const w of quickjsWorkers()) assert.ok(w.guests.length + w.leaving <= GUESTS_PER_WORKER, JSON.stringify(w));
		assert.deepEqual(homes.flatMap((w) => w.guests.filter((id) => ids.includes(id))).sort(), [...ids].sort());
		for (let n = 0; n < count; n++) assert.equal(textOf(await host.invokeTool(`who_${n}`, "c", {})), `guest ${n}`);
		await host.shutdown("test end");
		await settled(() => quickjsWorkers().length <= before);
		assert.ok(
			!quickjsWorkers().some((w) => w.guests.some((id) => ids.includes(id))),
			"no worker holds a guest that has gone",
		);
		assert.ok(quickjsWorkers().length <= before, "workers without guests have gone");
	});

	test("a full worker's slot that a guest left goes to the next guest once the worker confirms it gone", async () => {
		using dir = tempDir("pier-quickjs-pool-");
		const spec = (id: string, n: number) => {
			const path = quickjsPackage(dir.path, id, source(n), ["tools"]);
			return quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, deadlineMs: 5_000 });
		};
		await settled(() => quickjsWorkers().length === 0);
		const resident = testHost().host;
		await resident.load(Array.from({ length: GUESTS_PER_WORKER - 1 }, (_, n) => spec(`qjs-slot-${n}`, n)));
		const leaver = testHost().host;
		await leaver.load([spec("qjs-slot-leaver", 90)]);
		const home = () => quickjsWorkers().find((w) => w.guests.includes("qjs-slot-0"));
		assert.equal(home()?.guests.length, GUESTS_PER_WORKER, `one full worker: ${JSON.stringify(quickjsWorkers())}`);
		await leaver.shutdown("test end");
		await settled(() => home()?.leaving === 0);
		const next = testHost().host;
		await next.load([spec("qjs-slot-next", 91)]);
		assert.ok(
			home()?.guests.includes("qjs-slot-next"),
			`the freed slot is reused: ${JSON.stringify(quickjsWorkers())}`,
		);
		assert.equal(quickjsWorkers().length, 1, "no second worker was needed");
		assert.equal(textOf(await next.invokeTool("who_91", "c", {})), "guest 91");
		assert.equal(textOf(await resident.invokeTool("who_0", "c", {})), "guest 0");
		await resident.shutdown("test end");
		await next.shutdown("test end");
	});
});
