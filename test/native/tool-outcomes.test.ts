/**
 * Every outcome a tool's first step can have, through a real plugin host (a C fixture with counters): each
 * call answers as the ABI says, and the plugin sees the calls it is promised (each handle destroyed once,
 * each plugin string freed once, the waker set and cleared).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { launchSpec } from "../../src/extensions/runtimes/table.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { cModule, spec, textOf } from "./host-helpers.js";

interface Counts {
	executes: number;
	destroys: number;
	stringsOut: number;
	stringsFreed: number;
	paramsFreed: number;
	wakersSet: number;
	wakersCleared: number;
}

test("every first-step outcome answers, and the plugin's calls and strings are accounted for", async (t) => {
	const dir = tempDir("pier-tool-outcomes-");
	t.after(() => dir[Symbol.dispose]());
	const { host } = testHost();
	t.after(() => host.shutdown("test end"));
	assert.deepEqual((await host.load([spec(await cModule(dir.path, "step_cases"))])).failures, []);
	const failure = (name: string) =>
		host.invokeTool(name, "c1", {}).then(
			() => assert.fail(`${name} should fail`),
			(error: Error) => error.message,
		);
	const updates: string[] = [];
	assert.equal(textOf(await host.invokeTool("done", "c1", { a: 1 })), "done");
	assert.equal(textOf(await host.invokeTool("done", "c2", {})), "done");
	assert.equal(textOf(await host.invokeTool("big", "c1", {})).length, 100_000, "larger than the copy buffer");
	assert.match(await failure("fail"), /step_cases: failed/);
	assert.match(await failure("refuse"), /null handle/);
	assert.equal(textOf(await host.invokeTool("later", "c1", {}, { onUpdate: (u) => updates.push(textOf(u)) })), "later");
	assert.deepEqual(updates, ["partial", "working"]);
	assert.match(await failure("weird"), /unknown step tag 7/);
	assert.equal(textOf(await host.invokeTool("woken", "c1", {})), "woken");
	const counts = ((await host.invokeTool("counts", "c1", {})) as { details: Counts }).details;
	// 9 calls with `counts`: the refused one never had a handle; every string the plugin made was freed once.
	assert.equal(counts.executes, 8);
	assert.equal(counts.destroys, 7, "all but the `counts` call itself, still running");
	assert.equal(counts.paramsFreed, 9);
	assert.equal(counts.stringsFreed, counts.stringsOut);
	assert.deepEqual([counts.wakersSet, counts.wakersCleared], [1, 1]);
});

test("a result over the frame limit fails that call only; the plugin host goes on answering", async (t) => {
	const dir = tempDir("pier-tool-outcomes-");
	t.after(() => dir[Symbol.dispose]());
	const { host } = testHost();
	t.after(() => host.shutdown("test end"));
	const plugin = await cModule(dir.path, "step_cases");
	const limited = launchSpec(loadManifest(plugin), {
		cwd: plugin,
		projectTrusted: true,
		deadlineMs: 30_000,
		maxFrameBytes: 64 * 1024,
	});
	assert.deepEqual((await host.load([limited])).failures, []);
	await assert.rejects(host.invokeTool("big", "c1", {}), /exceeds 65536 bytes/);
	assert.equal(textOf(await host.invokeTool("done", "c2", {})), "done");
});
