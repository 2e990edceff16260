/**
 * Native plugins: a tool round trip through a plugin host (a Node child loading the cdylib with koffi)
 * beside the same echo as a process extension, measured in the same run; pipelined throughput; load time.
 * The native plugins are built once with cargo (offline), as the tests build them.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import type { ExtensionSpec } from "../src/extensions/host/instance.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { launchSpec } from "../src/extensions/runtimes/table.js";
import { nativeLibrary } from "../test/helpers/native-build.js";
import { type BenchContext, compareAll, ratePerSecond, type Result, timeEach } from "./harness.js";
import { PIPELINED, ROUND_TRIPS } from "./process.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROCESS_ECHO = join(ROOT, "bench", "fixtures", "echo-extension");

/** A package directory holding `manifestDir`'s manifest and the built library beside it. */
export async function nativePackage(root: string, crate: string, manifestDir: string): Promise<string> {
	const library = await nativeLibrary(crate);
	const manifest = JSON.parse(readFileSync(join(manifestDir, "pi-extension.json"), "utf8"));
	const dir = join(root, crate);
	mkdirSync(dir, { recursive: true });
	copyFileSync(library, join(dir, basename(library)));
	writeFileSync(join(dir, "pi-extension.json"), JSON.stringify({ ...manifest, library: `./${basename(library)}` }));
	return dir;
}

const specOf = (dir: string): ExtensionSpec =>
	launchSpec(loadManifest(dir), { cwd: ROOT, projectTrusted: true, deadlineMs: 30_000 });

export async function loaded(dirs: string[]): Promise<ExtensionHost> {
	const host = new ExtensionHost({ mode: "print", maxParallelLoads: dirs.length });
	const report = await host.load(dirs.map(specOf));
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	return host;
}

/** Spawn → ready of one extension, once (a sample of the load figure). */
async function loadOnce(dir: string): Promise<number> {
	const start = process.hrtime.bigint();
	const host = await loaded([dir]);
	const ms = Number(process.hrtime.bigint() - start) / 1e6;
	await host.shutdown("bench");
	return ms;
}

export async function benchNative(ctx: BenchContext): Promise<Result[]> {
	const work = mkdtempSync(join(tmpdir(), "pier-bench-native-"));
	const hosts: ExtensionHost[] = [];
	try {
		const echoDir = await nativePackage(work, "native-echo", join(ROOT, "examples", "native", "echo"));
		const crashDir = await nativePackage(work, "native-crash", join(ROOT, "test", "fixtures", "native", "crash"));
		const probeDir = await nativePackage(work, "native-probe", join(ROOT, "test", "fixtures", "native", "probe"));
		const args = { text: "hi" };
		// Both runtimes loaded at once, so their blocks alternate in one run (A B A B …).
		const processHost = await loaded([PROCESS_ECHO]);
		const nativeHost = await loaded([echoDir, crashDir]);
		const probeHost = new ExtensionHost({ mode: "print" });
		probeHost.setRuntimeHost({
			hasUi: false,
			ui: async () => ({ type: "ack" }) as never,
			action: async () => ["read"],
		});
		await probeHost.load([specOf(probeDir)]);
		hosts.push(processHost, nativeHost, probeHost);
		const processCall = () => processHost.invokeTool("echo", "c", args);
		// test/fixtures/native/crash `ok`: execute and one poll answering Done, like the process echo.
		const okCall = () => nativeHost.invokeTool("ok", "c", {});
		// examples/native/echo: execute, a poll with a partial (an update frame), then the result.
		const echoCall = () => nativeHost.invokeTool("echo", "c", args);
		// A runtime_action answered synchronously from inside poll (GetActiveTools), beside a tool making none.
		const plainCall = () => probeHost.invokeTool("forbidden", "c", {});
		const actionCall = () => probeHost.invokeTool("runtime_action", "c", { id: 4 });
		const processSide = {
			title: "process extension echo",
			id: "process.roundtrip",
			run: () => timeEach(processCall, ROUND_TRIPS, "µs"),
		};
		return await compareAll(ctx, [
			{
				id: "native.roundtrip",
				title: "tool round trip, native plugin (one poll, Done)",
				unit: "µs",
				run: () => timeEach(okCall, ROUND_TRIPS, "µs"),
				baseline: processSide,
			},
			{
				id: "native.echo.roundtrip",
				title: "tool round trip, native echo (partial + Done)",
				unit: "µs",
				run: () => timeEach(echoCall, ROUND_TRIPS, "µs"),
				baseline: { ...processSide, id: undefined },
			},
			{
				id: "native.throughput",
				title: `pipelined tool calls, native (${PIPELINED.toLocaleString("en")} per block)`,
				unit: "/s",
				run: () => ratePerSecond(okCall, PIPELINED),
				baseline: { title: "process extension echo", run: () => ratePerSecond(processCall, PIPELINED) },
			},
			{
				id: "native.action.roundtrip",
				title: "native tool making one synchronous runtime_action",
				unit: "µs",
				run: () => timeEach(actionCall, ROUND_TRIPS, "µs"),
				baseline: { title: "native tool making none", run: () => timeEach(plainCall, ROUND_TRIPS, "µs") },
			},
			{
				id: "native.load",
				title: "load 1 native extension (spawn → ready)",
				unit: "ms",
				run: () => loadOnce(crashDir),
				baseline: { title: "load 1 process extension", run: () => loadOnce(PROCESS_ECHO) },
			},
		]);
	} finally {
		for (const host of hosts) await host.shutdown("bench");
		rmSync(work, { recursive: true, force: true });
	}
}
