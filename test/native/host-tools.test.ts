/**
 * Native tools through pier's extension host, for real: the plugins are built with cargo and gcc, each runs
 * in its own plugin host process. Round trip with a partial, cancel of a pending step, the wake-driven tool
 * costing no CPU while it waits, the `__rpi` host context, and the C plugin loaded the same way.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { NativeChannel } from "../../src/extensions/runtimes/native/channel.js";
import { C_HEADER_DIR, cLibrary, NATIVE_REPO_ROOT } from "../helpers/native-build.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { echo, nativePackage, probe, report, slowAfterCancel, spec, textOf } from "./host-helpers.js";

/** A C plugin whose one tool `params` answers with the params it was given, as the result's details. */
function paramsPlugin(dir: string): string {
	const source = join(dir, "params.c");
	writeFileSync(
		source,
		`#include <stdlib.h>
#include <string.h>
#include "rpi_plugin.h"
static void pfree(StbString s) { free(s.ptr); }
static StbString own(const char *t, size_t n) { StbString s = { malloc(n ? n : 1), n }; memcpy(s.ptr, t, n); return s; }
static StepHandle run(StbStringRef id, StbString params, FreeStringFn fp) {
  (void)id; const char *pre = "{\\"content\\":[],\\"details\\":"; size_t n = strlen(pre);
  StbString *copy = malloc(sizeof *copy); copy->len = n + params.len + 1; copy->ptr = malloc(copy->len);
  memcpy(copy->ptr, pre, n); memcpy(copy->ptr + n, params.ptr, params.len); copy->ptr[copy->len - 1] = '}';
  if (fp) fp(params); return copy;
}
static StepResult poll_(StepHandle h, ToolPartialCb cb, void *ud) {
  (void)cb; (void)ud; StbString *p = h; StepResult r; memset(&r, 0, sizeof r); r.tag = RPI_STEP_DONE;
  r.payload.done.result = *p; p->ptr = NULL; p->len = 0; return r;
}
static void cancel_(StepHandle h) { (void)h; }
static void destroy_(StepHandle h) { StbString *p = h; free(p->ptr); free(p); }
int32_t rpi_plugin_register(const PluginApi *api) {
  if (!api) return 2; if (api->abi_version != 4) return 1; if (api->struct_size < sizeof(PluginApi)) return 3;
  const char *schema = "{\\"type\\":\\"object\\"}";
  StableToolSchema s = { own("params", 6), own("Answers its params", 18), own(schema, strlen(schema)) };
  return api->register_tool(&s, run, poll_, cancel_, destroy_, pfree);
}
`,
	);
	const out = join(dir, "libparams.so");
	execFileSync("gcc", ["-shared", "-fPIC", "-I", C_HEADER_DIR, "-o", out, source]);
	return out;
}

/** utime + stime of a process in clock ticks (/proc/<pid>/stat fields 14 and 15). */
function cpuTicks(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return Number(fields[11]) + Number(fields[12]);
}

describe("native tools", () => {
	test("echo: the partial arrives before the result, twice in a row, with the host context in params", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([spec(await echo(dir.path))]);
		assert.deepEqual(report.failures, []);
		const updates: unknown[] = [];
		const result = await host.invokeTool("echo", "c1", { text: "hi" }, { onUpdate: (u) => updates.push(u) });
		assert.equal(textOf(result), "echo: hi");
		assert.equal(updates.length, 1);
		assert.equal(textOf(updates[0]), "...");
		assert.equal(textOf(await host.invokeTool("echo", "c2", { text: "again" })), "echo: again");
	});

	test("a tool's params carry pier's host context under __rpi, overriding the model's", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const library = paramsPlugin(dir.path);
		const manifest = { schemaVersion: 1, id: "c-params", runtime: "native", capabilities: ["tools"] };
		const pkg = nativePackage(dir.path, library, manifest);
		await host.load([spec(pkg)]);
		const result = await host.invokeTool("params", "p1", { text: "x", __rpi: { cwd: "/forged" } });
		const params = (result as { details: { text: string; __rpi: { cwd: string } } }).details;
		assert.equal(params.text, "x");
		assert.equal(params.__rpi.cwd, pkg, "the extension's cwd from pier's hello, not the model's");
	});

	test("the C echo plugin loads and answers the same way", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const library = await cLibrary("c_echo", "examples/native/c-echo/c_echo.c");
		const manifest = JSON.parse(readFileSync(`${NATIVE_REPO_ROOT}/examples/native/c-echo/pi-extension.json`, "utf8"));
		const report = await host.load([spec(nativePackage(dir.path, library, manifest))]);
		assert.deepEqual(report.failures, []);
		const updates: unknown[] = [];
		const result = await host.invokeTool("echo", "c1", { text: "from C" }, { onUpdate: (u) => updates.push(u) });
		assert.match(textOf(result), /from C/);
		assert.ok(updates.length >= 1, "the C plugin's partial arrived");
	});

	test("cancel: the agent's abort reaches a pending step as cancel, then destroy runs once", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await probe(dir.path))]);
		const controller = new AbortController();
		const pending = host.invokeTool("slow", "s1", {}, { signal: controller.signal });
		await sleep(200);
		controller.abort();
		await assert.rejects(pending, /cancel/);
		const slow = await slowAfterCancel(host);
		assert.equal(slow.started, 1);
		assert.equal(slow.cancels, 1);
		assert.equal(slow.destroyed, 1);
		assert.ok(
			slow.polls >= 1 && slow.polls < 40,
			`a pending step is polled with backoff, not spun (${slow.polls} polls in 200 ms)`,
		);
	});

	test("a wake-driven tool costs no CPU while it waits, and finishes on its wake", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await probe(dir.path))]);
		const channel = host.instances[0]!.channel as NativeChannel;
		const pid = channel.pid!;
		await host.invokeTool("event_counts", "warm", {}); // JIT and first-call costs out of the measurement
		const before = cpuTicks(pid);
		const result = await host.invokeTool("sleepy", "z1", { ms: 1500 });
		const used = cpuTicks(pid) - before;
		assert.match(JSON.stringify(result), /sleep|slept|woke|1500/i);
		// 1.5 s pending: a busy poll would burn ~150 ticks; sleeping until the wake costs next to nothing.
		assert.ok(used <= 10, `the plugin host used ${used} clock ticks while the tool was pending`);
		const sleepy = report(await host.invokeTool("event_counts", "e2", {})).sleepy;
		assert.equal(sleepy.wakerInstalls, 1);
		assert.ok(sleepy.polls <= 4, `polled ${sleepy.polls} times: once per wake, not in a loop`);
	});
});
