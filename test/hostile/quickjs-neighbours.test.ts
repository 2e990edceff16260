/**
 * QuickJS guests share worker threads (several per worker, runtimes/quickjs/pool.ts): what one guest does to
 * its own heap or its own turn stays its own. Each attack runs beside a neighbour on the same worker, which must
 * keep answering (while the attacker is still at it, not after) with its own state intact.
 */
import assert from "node:assert/strict";
import { describe, type TestContext, test } from "node:test";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { quickjsWorkers } from "../../src/extensions/runtimes/quickjs/pool.js";
import { escapes, quickjsPackage } from "../helpers/hostile.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

const ATTACKER = `
export default function (pi) {
	const tool = (name, execute) =>
		pi.registerTool({ name, label: name, description: name, parameters: { type: "object" }, execute });
	tool("spin", async () => { while (true) {} });
	tool("hog", async () => { const hoard = []; while (true) hoard.push(new Array(100000).fill(7)); });
	tool("recurse", async () => { const down = (n) => down(n + 1) + 1; return down(0); });
	tool("rearm", async () => {
		const spin = () => { Promise.reject(new Error("again")).catch(spin); };
		spin();
		return { content: [{ type: "text", text: "answered" }] };
	});
}
`;

// The neighbour keeps state in its own heap: a count that must go on from where it was.
const NEIGHBOUR = `
export default function (pi) {
	let count = 0;
	pi.registerTool({ name: "count", label: "count", description: "count", parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: String(++count) }] }) });
}
`;

const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

/**
 * An attacker and a neighbour loaded in one host, both guests on the same worker thread (checked); the host is
 * shut down and the packages removed when the test ends.
 */
async function pair(t: TestContext, limits: { deadlineMs: number; watchdogMs?: number }) {
	const dir = tempDir("pier-hostile-neighbours-");
	const { host } = testHost();
	t.after(async () => {
		await host.shutdown("test end");
		dir[Symbol.dispose]();
	});
	const spec = (path: string) => quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, ...limits });
	const attacker = quickjsPackage(dir.path, "qjs-attacker", ATTACKER, ["tools"]);
	const neighbour = quickjsPackage(dir.path, "qjs-neighbour", NEIGHBOUR, ["tools"]);
	const report = await host.load([spec(attacker), spec(neighbour)]);
	assert.deepEqual(report.failures, []);
	const shared = quickjsWorkers().find((w) => w.guests.includes("qjs-attacker"));
	assert.ok(
		shared?.guests.includes("qjs-neighbour"),
		`one worker holds both guests: ${JSON.stringify(quickjsWorkers())}`,
	);
	return { host, root: dir.path };
}

/** Settles to "pending" unless `promise` has settled by the time the microtask queue has run. */
async function state(promise: Promise<unknown>): Promise<"pending" | "settled"> {
	const marker = Symbol();
	const first = await Promise.race([
		promise.then(
			() => "settled" as const,
			() => "settled" as const,
		),
		Promise.resolve(marker),
	]);
	return first === marker ? "pending" : first;
}

describe("QuickJS neighbours on one worker", () => {
	test("a guest spinning until its deadline: the neighbour answers while it spins, and after", async (t) => {
		using escaped = escapes();
		const { host } = await pair(t, { deadlineMs: 3_000 });
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "1");
		const spinning = host.invokeTool("spin", "c", {});
		spinning.catch(() => {});
		const started = Date.now();
		for (let i = 2; i <= 5; i++) assert.equal(textOf(await host.invokeTool("count", "c", {})), String(i));
		assert.equal(await state(spinning), "pending", "the neighbour's four calls did not wait for the spinner");
		assert.ok(Date.now() - started < 3_000, "the neighbour answered well inside the spinner's deadline");
		await assert.rejects(spinning, /interrupted/);
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "6");
		assert.deepEqual(escaped.list, []);
	});

	test("a guest running out of its 64 MiB: its own error; the neighbour's heap and answers are untouched", async (t) => {
		const { host } = await pair(t, { deadlineMs: 20_000 });
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "1");
		const hogging = host.invokeTool("hog", "c", {});
		hogging.catch(() => {});
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "2");
		await assert.rejects(hogging, /out of memory/);
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "3");
		assert.equal(host.registry.tools.get("count")!.instance.phase, "active");
	});

	test("unbounded recursion is the guest's own stack overflow; the neighbour answers", async (t) => {
		const { host } = await pair(t, { deadlineMs: 5_000 });
		await assert.rejects(host.invokeTool("recurse", "c", {}), /stack overflow/i);
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "1");
		assert.equal(host.registry.tools.get("recurse")!.instance.phase, "active", "a thrown error, not a crash");
	});

	test("a guest stopped for idle work past its answer is stopped alone", async (t) => {
		const { host } = await pair(t, { deadlineMs: 3_000 });
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "1");
		assert.equal(textOf(await host.invokeTool("rearm", "c", {})), "answered");
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "2", "answered while the chain re-arms");
		const attacker = host.registry.tools.get("spin")!.instance;
		const started = Date.now();
		while (attacker.phase !== "crashed" && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
		assert.match(attacker.failure ?? "", /qjs-attacker .*re-arms itself.*it was stopped/);
		assert.equal(textOf(await host.invokeTool("count", "c", {})), "3");
	});

	test("a host letting go of a spinning guest (shutdown) stops it; the worker's other guests go on", async (t) => {
		// Deadline and watchdog far away: only the host's stop can end the spin.
		const first = await pair(t, { deadlineMs: 60_000, watchdogMs: 120_000 });
		const { host: other } = testHost();
		t.after(() => other.shutdown("test end"));
		const neighbourDir = quickjsPackage(first.root, "qjs-other", NEIGHBOUR, ["tools"]);
		await other.load([
			quickjsSpec(loadManifest(neighbourDir), { cwd: first.root, projectTrusted: true, deadlineMs: 5_000 }),
		]);
		const home = () => quickjsWorkers().find((w) => w.guests.includes("qjs-other"));
		assert.ok(home()?.guests.includes("qjs-attacker"), "the spinner and the other host's guest share a worker");
		const spinning = first.host.invokeTool("spin", "c", {});
		spinning.catch(() => {});
		const started = Date.now();
		assert.equal(textOf(await other.invokeTool("count", "c", {})), "1");
		assert.equal(await state(spinning), "pending");
		await first.host.shutdown("let go");
		await assert.rejects(spinning, /shutting down/);
		// The worker confirms a guest gone only once its turn has ended: the spin really stopped.
		while (home()!.leaving > 0 && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 20));
		assert.deepEqual(home(), { guests: ["qjs-other"], leaving: 0 }, "the spinner has stopped and left its worker");
		for (let i = 2; i <= 4; i++) assert.equal(textOf(await other.invokeTool("count", "c", {})), String(i));
		assert.ok(Date.now() - started < 20_000, "all of it long before the spinner's 60 s deadline");
	});
});
