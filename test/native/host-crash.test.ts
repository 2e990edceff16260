/**
 * Crash isolation: a panic inside execute or poll is contained in the call; a segfault or an abort takes
 * down that plugin's host process only: the extension is reported crashed with the signal and the plugin
 * host's last stderr lines, the other extensions answer, and a reload brings it back.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { crash, echo, spec, textOf } from "./host-helpers.js";

describe("native crash isolation", () => {
	test("a panic inside execute or poll fails that call; the plugin keeps answering", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await crash(dir.path))]);
		await assert.rejects(host.invokeTool("panic_execute", "p1", {}), /null handle for 'panic_execute'/);
		await assert.rejects(host.invokeTool("panic_poll", "p2", {}), /panick/);
		assert.equal(textOf(await host.invokeTool("ok", "p3", {})), "ok");
		assert.equal(host.instances[0]!.phase, "active");
	});

	for (const [tool, signal, meaning] of [
		["segfault", "SIGSEGV", /segmentation fault/],
		["abort", "SIGABRT", /aborted/],
	] as const) {
		test(`${tool}: that extension crashes with ${signal} and its stderr; the others answer; a reload brings it back`, async (t) => {
			using dir = tempDir();
			const { host, diagnostics } = testHost();
			t.after(() => host.shutdown("test end"));
			const specs = [spec(await crash(dir.path)), spec(await echo(dir.path))];
			assert.deepEqual((await host.load(specs)).failures, []);
			await assert.rejects(host.invokeTool(tool, "c1", {}), (error: Error) => {
				assert.match(error.message, new RegExp(signal));
				assert.match(error.message, meaning);
				return true;
			});
			const crashed = host.instances.find((i) => i.id === "native-crash")!;
			assert.equal(crashed.phase, "crashed");
			const reported = diagnostics.find((d) => d.extensionId === "native-crash")?.message ?? "";
			assert.match(reported, new RegExp(`${signal}.*stderr:`, "s"), reported);
			if (tool === "abort") assert.match(reported, /stderr:[\s\S]*\S/, "the plugin host's last stderr lines are in the message");
			assert.equal(textOf(await host.invokeTool("echo", "e1", { text: "still here" })), "echo: still here");
			const reload = await host.reload([spec(await crash(dir.path)), spec(await echo(dir.path))]);
			assert.equal(reload.committed, true, JSON.stringify(reload.failures));
			assert.equal(textOf(await host.invokeTool("ok", "c2", {})), "ok");
		});
	}

	test("in a pier run, a segfaulting native tool fails that call and the session still answers", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", await crash(dir.path), "segfault {}"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /the segfault tool failed: ".*SIGSEGV/);
		assert.match(result.stderr, /extension native-crash crashed: .*SIGSEGV/);
	});
});
