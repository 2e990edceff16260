/**
 * `declare` across native plugins: priority orders them (smaller first, default 100) whatever order they were
 * given in, which decides a tool-name collision; a plugin declaring only other platforms keeps its tools but
 * its event handlers are skipped, with a PlatformSkip line on its stderr.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { C_HEADER_DIR } from "../helpers/native-build.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { nativePackage, spec, textOf } from "./host-helpers.js";

/** A C plugin declaring `declaration`, with a tool `same` answering `answer` and a ToolCall handler that vetoes all. */
function declaring(dir: string, name: string, declaration: string, answer: string): string {
	const source = join(dir, `${name}.c`);
	const quoted = (text: string) => JSON.stringify(text);
	writeFileSync(
		source,
		`#include <stdlib.h>
#include <string.h>
#include "rpi_plugin.h"
static void pfree(StbString s) { free(s.ptr); }
static StbString own(const char *t) { StbString s = { malloc(strlen(t) + 1), strlen(t) }; memcpy(s.ptr, t, s.len); return s; }
static StepHandle run(StbStringRef id, StbString params, FreeStringFn fp) { (void)id; if (fp) fp(params); return malloc(1); }
static StepResult poll_(StepHandle h, ToolPartialCb cb, void *ud) {
  (void)h; (void)cb; (void)ud; StepResult r; memset(&r, 0, sizeof r); r.tag = RPI_STEP_DONE;
  r.payload.done.result = own(${quoted(JSON.stringify({ content: [{ type: "text", text: answer }] }))}); return r;
}
static void cancel_(StepHandle h) { (void)h; }
static void destroy_(StepHandle h) { free(h); }
static int32_t veto(StablePluginEvent ev, void *ud) { (void)ev; (void)ud; return RPI_EVENT_HANDLER_ABORT; }
int32_t rpi_plugin_register(const PluginApi *api) {
  const char *json = ${quoted(declaration)}; StbStringRef d = { json, strlen(json) };
  api->declare(d);
  StableToolSchema s = { own("same"), own("Answers which plugin it is"), own("{}") };
  int32_t rc = api->register_tool(&s, run, poll_, cancel_, destroy_, pfree);
  return rc ? rc : api->register_event_handler(RPI_EVENT_TOOL_CALL, veto, NULL);
}
`,
	);
	const library = join(dir, `lib${name}.so`);
	execFileSync("gcc", ["-shared", "-fPIC", "-I", C_HEADER_DIR, "-o", library, source]);
	const manifest = { schemaVersion: 1, id: name, runtime: "native", capabilities: ["tools", "event_hooks"] };
	return nativePackage(dir, library, manifest);
}

describe("declare across native plugins", () => {
	test("the smaller priority loads first and wins the collision, whatever the given order", async (t) => {
		using dir = tempDir();
		const { host, diagnostics } = testHost();
		t.after(() => host.shutdown("test end"));
		const late = declaring(dir.path, "late", '{"priority":200}', "late");
		const plain = declaring(dir.path, "plain", "{}", "plain");
		const early = declaring(dir.path, "early", '{"priority":10}', "early");
		await host.load([spec(late), spec(plain), spec(early)]);
		assert.deepEqual(
			host.instances.map((i) => i.id),
			["early", "plain", "late"],
		);
		assert.equal(textOf(await host.invokeTool("same", "s1", {})), "early");
		assert.ok(
			diagnostics.some((d) => /tool "same" of extension plain .* collides with extension early/.test(d.message)),
		);
	});

	test("a plugin for other platforms keeps its tools; its handlers are skipped (PlatformSkip)", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const elsewhere = declaring(dir.path, "elsewhere", '{"platforms":["windows","macos"]}', "elsewhere");
		await host.load([spec(elsewhere)]);
		assert.equal(textOf(await host.invokeTool("same", "s1", {})), "elsewhere");
		assert.equal(host.hasHook("tool_call"), false, "no handler of a skipped platform is registered");
		// stderr is its own pipe: the line is written before the tool's answer but may be read after it.
		const stderr = () => host.instances[0]!.channel.diagnostics();
		for (let i = 0; i < 100 && !stderr().includes("PlatformSkip"); i++) await new Promise((r) => setTimeout(r, 20));
		assert.match(stderr(), /PlatformSkip: the plugin declares platforms \[windows, macos\]/);
	});
});
