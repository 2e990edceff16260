/** The host's per-extension metrics over real scripted process extensions. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { scriptedPackage, scriptedSpec, testHost } from "../helpers/scripted.js";
import { tempDir } from "../helpers/pier-cli.js";

test("invocations of every kind are counted and timed; timeouts are errors, cancellations are not", async (t) => {
	using dir = tempDir();
	const { host } = testHost({ timeouts: { invocationMs: 200 } });
	t.after(() => host.shutdown("test end"));
	const pkg = scriptedPackage(dir.path, "metered", {
		tools: ["echo", "hang", "slow"],
		commands: ["go"],
		hooks: ["input"],
	});
	await host.load([scriptedSpec(pkg)]);
	const initialized = host.metricsOf("metered")!.snapshot();
	assert.equal(initialized.invocations, 0, "the load and initialize requests are not invocations");

	await host.invokeTool("echo", "c1", { text: "a" });
	await host.invokeTool("echo", "c2", { text: "b" });
	await host.invokeCommand("go", "");
	await host.emit("input", { text: "x" });
	await assert.rejects(host.invokeTool("hang", "c3", {}));
	const controller = new AbortController();
	const slow = host.invokeTool("slow", "c4", {}, { signal: controller.signal });
	controller.abort();
	await assert.rejects(slow);

	const s = host.metricsOf("metered")!.snapshot();
	assert.equal(s.invocations, 6);
	assert.equal(s.errors, 1);
	assert.match(s.lastError?.message ?? "", /did not answer within 200 ms/);
	assert.ok(s.p99Ms! >= 150, `the timed-out call is the slow tail: ${s.p99Ms}`);
	assert.ok(s.p50Ms! < s.p99Ms!);
});

test("a crash is counted; a reload is a restart and keeps the counts; metrics: false records nothing", async (t) => {
	using dir = tempDir();
	const { host } = testHost();
	t.after(() => host.shutdown("test end"));
	const pkg = scriptedPackage(dir.path, "crashy", { tools: ["echo", "crash"] });
	await host.load([scriptedSpec(pkg)]);
	await host.invokeTool("echo", "c1", { text: "a" });
	await assert.rejects(host.invokeTool("crash", "c2", {}));
	let s = host.metricsOf("crashy")!.snapshot();
	assert.deepEqual([s.invocations, s.errors, s.crashes, s.restarts], [2, 1, 1, 0]);
	assert.match(s.lastError?.message ?? "", /exit|closed/);

	const report = await host.reload([scriptedSpec(pkg)]);
	assert.equal(report.committed, true);
	await host.invokeTool("echo", "c3", { text: "b" });
	s = host.metricsOf("crashy")!.snapshot();
	assert.deepEqual([s.invocations, s.restarts], [3, 1]);

	const { host: bare } = testHost({ metrics: false });
	t.after(() => bare.shutdown("test end"));
	await bare.load([scriptedSpec(scriptedPackage(dir.path, "bare", { tools: ["echo"] }))]);
	await bare.invokeTool("echo", "c1", { text: "a" });
	assert.equal(bare.metricsOf("bare"), undefined);
});
