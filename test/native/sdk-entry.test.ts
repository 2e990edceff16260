/**
 * The SDK's entry checks, called for real: libraries built offline by cargo and gcc, loaded with koffi,
 * `rpi_plugin_register` called directly with hand-made tables (native-abi.md §1.2: null 2, ABI 1, short
 * struct_size 3, panic 70), plus the C header's own layout asserts and the crate's Rust unit tests.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import koffi from "koffi";
import { C_HEADER_DIR, NATIVE_TARGET_DIR, cLibrary, nativeLibrary, runTool } from "../helpers/native-build.js";
import { FakeHost } from "./sdk-fake-host.js";

const BUILD = { timeout: 600_000 };

function register(library: string, api: Buffer | null): number {
	const fn = koffi.load(library).func("int32_t rpi_plugin_register(void *api)");
	return fn(api) as number;
}

/** A zero-filled table of `bytes` with the two leading u32s set. */
function table(abiVersion: number, structSize: number, bytes = 256): Buffer {
	const api = Buffer.alloc(bytes);
	api.writeUInt32LE(abiVersion, 0);
	api.writeUInt32LE(structSize, 4);
	return api;
}

test("a null PluginApi is refused with 2", BUILD, async () => {
	assert.equal(register(await nativeLibrary("native-echo"), null), 2);
});

test("a table of ABI version 3 is refused with 1 before anything else is read", BUILD, async () => {
	const echo = await nativeLibrary("native-echo");
	assert.equal(register(echo, table(3, 256)), 1);
	assert.equal(register(echo, table(5, 256)), 1);
	// The version is checked before the size: a v3 table that is also short still says "version".
	assert.equal(register(echo, table(3, 8, 8)), 1);
});

test("ABI 4 with a struct_size below the SDK's 168-byte PluginApi is refused with 3", BUILD, async () => {
	const echo = await nativeLibrary("native-echo");
	assert.equal(register(echo, table(4, 100)), 3);
	// Just past the limit: 167 is refused; only the two leading u32s of an 8-byte table are read.
	assert.equal(register(echo, table(4, 167)), 3);
	assert.equal(register(echo, table(4, 100, 8)), 3);
});

test("a registration body that panics is contained and returns 70", BUILD, async () => {
	const host = new FakeHost(await nativeLibrary("native-panic-register"));
	assert.equal(host.register(), 70);
});

test("a table of exactly 168 bytes is enough: the echo plugin registers everything (§6 order)", BUILD, async () => {
	const host = new FakeHost(await nativeLibrary("native-echo"));
	host.api.writeUInt32LE(168, 4);
	assert.equal(host.register(), 0);
	assert.deepEqual([...host.tools.keys()], ["echo"]);
	assert.deepEqual([...host.events.keys()], [23]);
	assert.equal(host.providers[0]?.name, "stub-provider");
	assert.equal(host.renderers.markdown[0]?.name, "stub-uppercase");
});

test("the echo plugin returns the slot's code when a required registrar is missing", BUILD, async () => {
	const echo = await nativeLibrary("native-echo");
	// Empty the provider slot (field #7): §6 says a missing provider slot returns 4.
	const host = new FakeHost(echo);
	host.clearSlot(7);
	assert.equal(host.register(), 4);
	const noTool = new FakeHost(echo);
	noTool.clearSlot(3);
	assert.equal(noTool.register(), 1);
});

test("the C fixtures refuse or accept the host's 256-byte table as built", BUILD, async () => {
	assert.equal(register(await cLibrary("abi3"), table(4, 256)), 1);
	assert.equal(register(await cLibrary("abi3"), table(3, 256)), 0);
	assert.equal(register(await cLibrary("too_big"), table(4, 256)), 3);
	assert.equal(register(await cLibrary("too_big"), null), 2);
	// newer_api needs 200 bytes: refused at 199, loads at pier's 256 and sees the unknown slots as null.
	const newer = await cLibrary("newer_api");
	assert.equal(register(newer, table(4, 199)), 3);
	const host = new FakeHost(newer);
	assert.equal(host.register(), 0);
	const run = await host.runTool("newer", {});
	assert.equal(run.outcome?.tag, "done");
	assert.match(run.outcome?.text ?? "", /future slots null/);
});

test(
	"kit/c/rpi_plugin.h compiles with -Wall -Wextra -Werror as C11 and C++, and its layout asserts bite",
	BUILD,
	async () => {
		const dir = join(NATIVE_TARGET_DIR, "c");
		await cLibrary("abi3"); // creates target/c
		const ok = join(dir, "header-check.c");
		writeFileSync(
			ok,
			[
				'#include "rpi_plugin.h"',
				"int32_t rpi_plugin_register(const PluginApi *api) { RPI_CHECK_API(api); return 0; }",
				'_Static_assert(RPI_EVENT_TAG_COUNT == 37, "37 tags");',
				'_Static_assert(RPI_EVENT_EDITOR_CHANGE == 36 && RPI_ACTION_SIDE_QUESTION == 25, "last values");',
				'_Static_assert(RPI_STEP_PENDING == 0 && RPI_STEP_DONE == 1 && RPI_STEP_ERR == 2, "step tags");',
				'_Static_assert(RPI_PLUGIN_ABI_VERSION_UNIFIED == 4 && RPI_REGISTER_PANIC_STATUS == 70, "versions");',
				"",
			].join("\n"),
		);
		const flags = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-I", C_HEADER_DIR, "-fsyntax-only"];
		await runTool("gcc", ["-std=c11", ...flags, ok]);
		const cpp = join(dir, "header-check.cpp");
		writeFileSync(cpp, '#include "rpi_plugin.h"\nint main() { return sizeof(PluginApi) == 168 ? 0 : 1; }\n');
		await runTool("g++", ["-std=c++11", ...flags, cpp]);
		// The asserts are real: claiming a different size fails to compile.
		const bad = join(dir, "header-bad.c");
		writeFileSync(bad, '#include "rpi_plugin.h"\n_Static_assert(sizeof(PluginApi) == 176, "wrong on purpose");\n');
		await assert.rejects(runTool("gcc", ["-std=c11", ...flags, bad]), /wrong on purpose/);
	},
);

test("cargo test of rpi-plugin-sdk passes with every feature, and the std-only default builds", BUILD, async () => {
	const all = await runTool("cargo", ["test", "--offline", "--release", "-p", "rpi-plugin-sdk", "--all-features"]);
	const results = `${all.stdout}\n${all.stderr}`.match(/test result: .*/g) ?? [];
	assert.ok(results.length > 0, "cargo printed no test result");
	for (const line of results) assert.match(line, /^test result: ok\. \d+ passed; 0 failed/);
	const passed = results.reduce((n, line) => n + Number(/(\d+) passed/.exec(line)?.[1] ?? 0), 0);
	assert.ok(passed >= 20, `expected at least 20 Rust tests, ran ${passed}`);
	await runTool("cargo", ["build", "--offline", "--release", "-p", "rpi-plugin-sdk", "--no-default-features"]);
});
