/**
 * Finding 12: QuickJS work escaped the deadline. A promise chain that re-arms itself from its rejection
 * handler (it even catches the interrupt) kept the worker spinning after the call answered, so the next call
 * waited for the watchdog; an import of a named pipe inside the package wedged the worker in a blocking read.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { escapes, quickjsPackage } from "../helpers/hostile.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

const SOURCE = `
export default function (pi) {
	const tool = (name, execute) =>
		pi.registerTool({ name, label: name, description: name, parameters: { type: "object" }, execute });
	const text = (t) => ({ content: [{ type: "text", text: t }] });
	// Each turn of these chains rejects and re-arms from its rejection handler, which also catches the
	// interrupt. (A chain that returns its inner promise instead grows the heap until QuickJS runs out of memory
	// and the chain breaks: ended, but only by luck.)
	tool("rearm", async () => {
		const spin = () => { Promise.reject(new Error("again")).catch(spin); };
		spin();
		return text("answered");
	});
	tool("rearm_then", async () => {
		const spin = () => { Promise.resolve().then(() => { throw new Error("again"); }).then(null, spin); };
		spin();
		return text("answered");
	});
	tool("forever", async () => {
		// Never answers: the chain runs inside the call's own deadline.
		const spin = () => { Promise.reject(new Error("again")).catch(spin); };
		spin();
		return new Promise(() => {});
	});

	tool("ok", async () => text("fine"));
	tool("work", async () => {
		// Legitimate work after answering: a few thousand jobs, well inside the idle budget.
		let n = 0;
		const step = () => (++n < 5000 ? Promise.resolve().then(step) : undefined);
		step();
		return text("answered");
	});
	tool("import", async (_id, params) => {
		const mod = await import(params.path);
		return text(String(mod.default));
	});
}
`;

const HELLO = join(REPO_ROOT, "examples", "quickjs", "hello");
const DEADLINE_MS = 4_000;
const WATCHDOG_MS = 2 * DEADLINE_MS + 1_000;
const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

async function hostWith(dir: string, limits: { deadlineMs?: number; watchdogMs?: number } = {}) {
	const { host, diagnostics } = testHost();
	const spec = (path: string) =>
		quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, deadlineMs: DEADLINE_MS, ...limits });
	const report = await host.load([spec(dir), spec(HELLO)]);
	assert.deepEqual(report.failures, []);
	return { host, diagnostics };
}

describe("finding 12: QuickJS work that escapes its deadline", () => {
	for (const tool of ["rearm", "rearm_then"]) {
		test(`${tool}: a chain re-arming itself after the call answered stops the guest well before the watchdog`, async (t) => {
			using dir = tempDir("pier-hostile-jobs-");
			using escaped = escapes();
			const ext = quickjsPackage(dir.path, "qjs-jobs", SOURCE, ["tools"]);
			const { host, diagnostics } = await hostWith(ext);
			t.after(() => host.shutdown("test end"));
			const started = Date.now();
			assert.equal(textOf(await host.invokeTool(tool, "c", {})), "answered");
			// The next call is queued behind the spinning chain: it fails fast, naming the extension.
			await assert.rejects(
				host.invokeTool("ok", "c", {}),
				(e: unknown) =>
					e instanceof ExtensionError &&
					/^extension qjs-jobs crashed: QuickJS extension qjs-jobs \(.*index\.mjs\): promise jobs kept running after it had answered every call/.test(
						e.message,
					),
			);
			const elapsed = Date.now() - started;
			assert.ok(
				elapsed < DEADLINE_MS,
				`stopped after ${elapsed} ms (deadline ${DEADLINE_MS}, watchdog ${WATCHDOG_MS})`,
			);
			assert.ok(diagnostics.some((d) => /qjs-jobs crashed: .*re-arms itself/.test(d.message)));
			// Later calls fail at once; the neighbour answers.
			const again = Date.now();
			await assert.rejects(host.invokeTool("ok", "c", {}), /is not active \(crashed\)/);
			assert.ok(Date.now() - again < 1_000);
			assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
			assert.deepEqual(escaped.list, []);
		});
	}

	test("a chain spinning inside a call that never answers ends at the call's deadline", async (t) => {
		using dir = tempDir("pier-hostile-jobs-");
		const ext = quickjsPackage(dir.path, "qjs-jobs", SOURCE, ["tools"]);
		const { host } = await hostWith(ext);
		t.after(() => host.shutdown("test end"));
		const started = Date.now();
		// Whether the interrupt breaks the chain or the chain spins on through the grace, the call ends.
		await assert.rejects(host.invokeTool("forever", "c", {}), /qjs-jobs .*4000 ms deadline.*it was stopped/);
		const elapsed = Date.now() - started;
		assert.ok(elapsed < WATCHDOG_MS - 2_000, `ended after ${elapsed} ms (watchdog ${WATCHDOG_MS})`);
		assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
	});

	test("the watchdog covers jobs after the call answered, with no call waiting", async (t) => {
		// A deadline far away and a short watchdog: the watchdog, not the worker's own budget, has to act.
		using dir = tempDir("pier-hostile-jobs-");
		const ext = quickjsPackage(dir.path, "qjs-jobs", SOURCE, ["tools"]);
		const { host, diagnostics } = await hostWith(ext, { deadlineMs: 60_000, watchdogMs: 400 });
		t.after(() => host.shutdown("test end"));
		const started = Date.now();
		assert.equal(textOf(await host.invokeTool("rearm", "c", {})), "answered");
		const instance = host.registry.tools.get("rearm")!.instance;
		while (instance.phase !== "crashed" && Date.now() - started < 10_000) {
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		assert.equal(instance.phase, "crashed", "nobody called again, and still the guest was stopped");
		assert.match(
			instance.failure ?? "",
			/QuickJS extension qjs-jobs \(.*index\.mjs\): did not yield for 400 ms; it was stopped/,
		);
		assert.ok(diagnostics.some((d) => /extension qjs-jobs crashed/.test(d.message)));
		assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
	});

	test("legitimate jobs after the answer run to completion; the guest stays live", async (t) => {
		using dir = tempDir("pier-hostile-jobs-");
		const ext = quickjsPackage(dir.path, "qjs-jobs", SOURCE, ["tools"]);
		const { host } = await hostWith(ext);
		t.after(() => host.shutdown("test end"));
		for (let i = 0; i < 3; i++) assert.equal(textOf(await host.invokeTool("work", "c", {})), "answered");
		assert.equal(textOf(await host.invokeTool("ok", "c", {})), "fine");
	});

	test("an import of a named pipe (or a link to one, or a directory) is refused; the worker is not wedged", async (t) => {
		using dir = tempDir("pier-hostile-jobs-");
		using escaped = escapes();
		const ext = quickjsPackage(dir.path, "qjs-jobs", SOURCE, ["tools"]);
		execFileSync("mkfifo", [join(ext, "pipe.mjs")]);
		symlinkSync(join(ext, "pipe.mjs"), join(ext, "link.mjs"));
		execFileSync("mkdir", [join(ext, "folder.mjs")]);
		const { host } = await hostWith(ext);
		t.after(() => host.shutdown("test end"));
		for (const path of ["./pipe.mjs", "./link.mjs", "./folder.mjs"]) {
			const started = Date.now();
			await assert.rejects(
				host.invokeTool("import", "c", { path }),
				(e: unknown) =>
					e instanceof ExtensionError &&
					e.message.includes(
						`import "${path}" refused: ${join(ext, path.slice(2)).replace("link", "pipe")} is not a regular file`,
					) &&
					e.message.includes("QuickJS extension qjs-jobs"),
				path,
			);
			assert.ok(Date.now() - started < DEADLINE_MS, `${path} answered within the deadline`);
			assert.equal(textOf(await host.invokeTool("ok", "c", {})), "fine", `the worker answers after ${path}`);
		}
		assert.deepEqual(escaped.list, []);
	});
});
