/**
 * Loading native plugins: refusals that say which (ABI 3, a struct_size too small, a panic during
 * registration, a missing symbol), a plugin built for a larger PluginApi that still loads, and the
 * manifest's `library` rules (contained, a regular file, no symlink escape, no process/QuickJS fields).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadManifest } from "../../src/extensions/manifest.js";
import { nativeLibrary } from "../helpers/native-build.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { cModule, crateModule, FIXTURES, nativePackage, spec, textOf } from "./host-helpers.js";

async function loadFailure(dir: string): Promise<string> {
	const { host } = testHost();
	try {
		const report = await host.load([spec(dir)]);
		assert.equal(report.failures.length, 1, `expected the load to fail: ${JSON.stringify(report)}`);
		return report.failures[0]!.message;
	} finally {
		await host.shutdown("test end");
	}
}

describe("native plugin load", () => {
	test("an ABI 3 plugin is refused as an ABI version mismatch, naming the library", async () => {
		using dir = tempDir();
		const pkg = await cModule(dir.path, "abi3");
		const message = await loadFailure(pkg);
		assert.match(message, /ABI version mismatch/);
		assert.match(message, /another ABI version than 4/);
		assert.match(message, /libabi3\.so/);
		assert.doesNotMatch(message, /struct_size/);
	});

	test("a plugin compiled against a larger PluginApi than 256 bytes is refused as struct_size too small", async () => {
		using dir = tempDir();
		const message = await loadFailure(await cModule(dir.path, "too_big"));
		assert.match(message, /struct_size too small/);
		assert.match(message, /256 bytes/);
		assert.match(message, /libtoo_big\.so/);
		assert.doesNotMatch(message, /ABI version mismatch/);
	});

	test("a plugin built for a newer (200-byte) PluginApi loads and sees the unknown slots as null", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([spec(await cModule(dir.path, "newer_api"))]);
		assert.deepEqual(report.failures, []);
		assert.equal(textOf(await host.invokeTool("newer", "n1", {})), "newer: loaded, future slots null");
	});

	test("a panic during registration is refused with code 70 and the panic on stderr", async () => {
		using dir = tempDir();
		const pkg = await crateModule(dir.path, "native-panic-register", join(FIXTURES, "panic-register"));
		const message = await loadFailure(pkg);
		assert.match(message, /panicked during registration \(code 70\)/);
		assert.match(message, /libnative_panic_register\.so/);
	});

	test("a file that is no shared object, and a library without rpi_plugin_register, are refused naming it", async () => {
		using dir = tempDir();
		const manifest = { schemaVersion: 1, runtime: "native", capabilities: ["tools"] };
		const empty = join(dir.path, "libempty.so");
		writeFileSync(empty, "");
		assert.match(
			await loadFailure(nativePackage(dir.path, empty, { ...manifest, id: "empty" })),
			/could not open library .*libempty\.so/,
		);
		const source = join(dir.path, "nosym.c");
		writeFileSync(source, "int not_a_plugin(void) { return 0; }\n");
		const nosym = join(dir.path, "libnosym.so");
		execFileSync("gcc", ["-shared", "-fPIC", "-o", nosym, source]);
		const message = await loadFailure(nativePackage(dir.path, nosym, { ...manifest, id: "nosym" }));
		assert.match(message, /`rpi_plugin_register` was not found in .*libnosym\.so/);
	});
	test("a registration the manifest's capabilities do not cover fails the load, naming both", async () => {
		using dir = tempDir();
		const manifest = {
			schemaVersion: 1,
			id: "thin-echo",
			runtime: "native",
			capabilities: ["tools", "commands", "event_hooks"],
		};
		const message = await loadFailure(nativePackage(dir.path, await nativeLibrary("native-echo"), manifest));
		assert.match(
			message,
			/registers provider "stub-provider", but pi-extension\.json of thin-echo does not declare the "provider" capability/,
		);
	});
});

describe("the native manifest", () => {
	const write = (dir: string, manifest: Record<string, unknown>) => {
		writeFileSync(
			join(dir, "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "n", runtime: "native", ...manifest }),
		);
	};

	test("library is required, contained, a regular file, and the other runtimes' fields are refused", () => {
		using dir = tempDir();
		const outside = join(dir.path, "outside.so");
		writeFileSync(outside, "");
		const pkg = join(dir.path, "pkg");
		mkdirSync(join(pkg, "sub"), { recursive: true });
		writeFileSync(join(pkg, "lib.so"), "");
		symlinkSync(outside, join(pkg, "escape.so"));
		const cases: Array<[Record<string, unknown>, RegExp]> = [
			[{}, /library: a native extension requires library/],
			[{ library: "../outside.so" }, /library: .*must remain inside the manifest directory/],
			[{ library: "/etc/hostname" }, /library: .*must be relative/],
			[{ library: "./escape.so" }, /library: .*escapes the manifest directory/],
			[{ library: "./sub" }, /library: .*is not a regular file/],
			[{ library: "./missing.so" }, /library: .*does not exist/],
			[{ library: "./lib.so", executable: "./lib.so" }, /executable: a native extension must not set executable/],
			[{ library: "./lib.so", entry: "./x.js" }, /entry: a native extension must not set entry/],
			[{ library: "./lib.so", arguments: ["x"] }, /arguments: a native extension does not support arguments/],
		];
		for (const [fields, problem] of cases) {
			write(pkg, fields);
			assert.throws(() => loadManifest(pkg), problem, JSON.stringify(fields));
		}
		write(pkg, { library: "./lib.so" });
		assert.deepEqual(loadManifest(pkg).runtime, { kind: "native", library: join(pkg, "lib.so") });
		writeFileSync(join(pkg, "pi-extension.json"), JSON.stringify({ schemaVersion: 1, id: "p", library: "./lib.so" }));
		assert.throws(() => loadManifest(pkg), /library: only a native extension sets library/);
	});
});
