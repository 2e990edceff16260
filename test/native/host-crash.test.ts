/**
 * Crash isolation: a panic inside execute or poll is contained in the call; a segfault or an abort takes
 * down that plugin's host process only: the extension is reported crashed with the signal and the plugin
 * host's last stderr lines, the other extensions answer, and a reload brings it back.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { C_HEADER_DIR } from "../helpers/native-build.js";
import { crash, echo, nativePackage, spec, textOf } from "./host-helpers.js";

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
			assert.match(reported, new RegExp(`${signal}.*while running tool ${tool} \\(call c1\\)`), reported);
			assert.equal(textOf(await host.invokeTool("echo", "e1", { text: "still here" })), "echo: still here");
			const reload = await host.reload([spec(await crash(dir.path)), spec(await echo(dir.path))]);
			assert.equal(reload.committed, true, JSON.stringify(reload.failures));
			assert.equal(textOf(await host.invokeTool("ok", "c2", {})), "ok");
		});
	}

	test("the crash message carries the plugin host's last stderr lines", async (t) => {
		using dir = tempDir();
		const { host, diagnostics } = testHost();
		t.after(() => host.shutdown("test end"));
		const source = join(dir.path, "loud.c");
		writeFileSync(
			source,
			`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rpi_plugin.h"
static void pfree(StbString s) { free(s.ptr); }
static StbString own(const char *t) { StbString s = { malloc(strlen(t)), strlen(t) }; memcpy(s.ptr, t, s.len); return s; }
static StepHandle run(StbStringRef id, StbString params, FreeStringFn fp) {
  (void)id; if (fp) fp(params);
  for (int i = 1; i <= 30; i++) fprintf(stderr, "loud line %d\\n", i);
  fprintf(stderr, "last words before abort\\n"); fflush(stderr); abort();
}
static StepResult poll_(StepHandle h, ToolPartialCb cb, void *ud) { (void)h; (void)cb; (void)ud; StepResult r; memset(&r, 0, sizeof r); return r; }
static void noop(StepHandle h) { (void)h; }
int32_t rpi_plugin_register(const PluginApi *api) {
  StableToolSchema s = { own("loud"), own("Talks, then aborts"), own("{}") };
  return api->register_tool(&s, run, poll_, noop, noop, pfree);
}
`,
		);
		const library = join(dir.path, "libloud.so");
		execFileSync("gcc", ["-shared", "-fPIC", "-I", C_HEADER_DIR, "-o", library, source]);
		await host.load([
			spec(
				nativePackage(dir.path, library, { schemaVersion: 1, id: "loud", runtime: "native", capabilities: ["tools"] }),
			),
		]);
		await assert.rejects(host.invokeTool("loud", "l1", {}), /SIGABRT/);
		const reported = diagnostics.find((d) => d.extensionId === "loud")?.message ?? "";
		assert.match(reported, /SIGABRT.*while running tool loud \(call l1\); stderr: [\s\S]*last words before abort/);
		assert.doesNotMatch(reported, /loud line 5\n/, "only the last lines, not the whole tail");
	});

	test("in a pier run, a segfaulting native tool fails that call; the next prompt's call to another extension succeeds", async () => {
		using dir = tempDir();
		const args = [
			"run",
			"-e",
			await crash(dir.path),
			"-e",
			await echo(dir.path),
			"segfault {}",
			'echo {"text":"after"}',
		];
		const result = await runPier(args, { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /extension native-crash crashed: .*SIGSEGV/);
		assert.match(result.stdout, /echo: after/);
	});
});
