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
import { measure, printRows, type Stats, stats } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PROCESS_ECHO = join(ROOT, "bench", "fixtures", "echo-extension");

/** A package directory holding `manifestDir`'s manifest and the built library beside it. */
async function nativePackage(root: string, crate: string, manifestDir: string): Promise<string> {
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

async function loaded(dirs: string[]): Promise<ExtensionHost> {
	const host = new ExtensionHost({ mode: "print", maxParallelLoads: dirs.length });
	const report = await host.load(dirs.map(specOf));
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	return host;
}

async function pipelined(count: number, fire: () => Promise<unknown>): Promise<Stats> {
	const start = process.hrtime.bigint();
	for (let done = 0; done < count; done += 500) {
		await Promise.all(Array.from({ length: Math.min(500, count - done) }, fire));
	}
	const rate = (count / (Number(process.hrtime.bigint() - start) / 1e6)) * 1000;
	return { runs: 1, median: rate, p99: rate };
}

/** Spawn → ready of one extension, `runs` times. */
async function loadTimes(dir: string, runs: number): Promise<Stats> {
	const samples: number[] = [];
	for (let i = 0; i < runs; i++) {
		const start = process.hrtime.bigint();
		const host = await loaded([dir]);
		samples.push(Number(process.hrtime.bigint() - start) / 1e6);
		await host.shutdown("bench");
	}
	return stats(samples);
}

export async function benchNative(runs: number): Promise<void> {
	const calls = runs * 100;
	const work = mkdtempSync(join(tmpdir(), "pier-bench-native-"));
	try {
		const echoDir = await nativePackage(work, "native-echo", join(ROOT, "examples", "native", "echo"));
		const crashDir = await nativePackage(work, "native-crash", join(ROOT, "test", "fixtures", "native", "crash"));
		const probeDir = await nativePackage(work, "native-probe", join(ROOT, "test", "fixtures", "native", "probe"));
		const args = { text: "hi" };

		const processHost = await loaded([PROCESS_ECHO]);
		const processCall = () => processHost.invokeTool("echo", "c", args);
		await measure(processCall, 200, 0);
		const processRound = await measure(processCall, calls, 0);
		const processRate = await pipelined(20_000, processCall);
		await processHost.shutdown("bench");

		const nativeHost = await loaded([echoDir, crashDir]);
		// examples/native/echo: execute, a poll with a partial (an update frame), then the result.
		const echoCall = () => nativeHost.invokeTool("echo", "c", args);
		// test/fixtures/native/crash `ok`: execute and one poll answering Done, like the process echo.
		const okCall = () => nativeHost.invokeTool("ok", "c", {});
		await measure(echoCall, 200, 0);
		await measure(okCall, 200, 0);
		const echoRound = await measure(echoCall, calls, 0);
		const okRound = await measure(okCall, calls, 0);
		const okRate = await pipelined(20_000, okCall);
		await nativeHost.shutdown("bench");

		// A plugin's runtime_action answered synchronously from inside its poll (GetActiveTools), beside a tool
		// of the same plugin that makes none: the difference is the blocking round trip to pier.
		const probeHost = new ExtensionHost({ mode: "print" });
		probeHost.setRuntimeHost({
			hasUi: false,
			ui: async () => ({ type: "ack" }) as never,
			action: async () => ["read"],
		});
		await probeHost.load([specOf(probeDir)]);
		const plainCall = () => probeHost.invokeTool("forbidden", "c", {});
		const actionCall = () => probeHost.invokeTool("runtime_action", "c", { id: 4 });
		await measure(actionCall, 200, 0);
		const plainRound = await measure(plainCall, calls, 0);
		const actionRound = await measure(actionCall, calls, 0);
		await probeHost.shutdown("bench");

		const loadRuns = Math.max(3, Math.floor(runs / 2));
		const nativeLoads = await loadTimes(crashDir, loadRuns);
		const processLoads = await loadTimes(PROCESS_ECHO, loadRuns);

		printRows("native plugins", [
			{
				figure: "tool round trip, native (one poll, Done)",
				value: okRound,
				baseline: "process extension echo",
				base: processRound,
			},
			{
				figure: "tool round trip, native echo (partial + Done)",
				value: echoRound,
				baseline: "process extension echo",
				base: processRound,
			},
			{
				figure: "pipelined tool calls, native",
				value: okRate,
				baseline: "process extension echo",
				base: processRate,
				unit: "/s",
			},
			{
				figure: "native tool making one synchronous runtime_action",
				value: actionRound,
				baseline: "native tool making none",
				base: plainRound,
			},
			{
				figure: "load 1 native extension (spawn → ready)",
				value: nativeLoads,
				baseline: "load 1 process extension",
				base: processLoads,
			},
		]);
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}
