/**
 * QuickJS extensions: tool and command round trips beside a process extension's (an in-process sandbox should
 * beat a process), event fan-out to 10 extensions beside one round trip, a round trip while a neighbour on the same
 * worker computes beside one without, load beside a process extension's, and the resident memory of 50 idle
 * extensions, per extension (a fresh process per sample: quickjs-memory.ts).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { quickjsSpec } from "../src/extensions/runtimes/quickjs/launcher.js";
import { quickjsWorkers } from "../src/extensions/runtimes/quickjs/pool.js";
import type { Result } from "./figures.js";
import { echoHost, fixtureDirs } from "./fixture-copies.js";
import { type BenchContext, compareAll, timeEach, timeOnce } from "./harness.js";
import { ROUND_TRIPS } from "./process.js";

const MEMORY_CHILD = fileURLToPath(new URL("./quickjs-memory.js", import.meta.url));
const SPINNER = fileURLToPath(new URL("../../bench/fixtures/spin-quickjs", import.meta.url));
const IDLE_EXTENSIONS = 50;
/** How long the neighbour computes per block: longer than a block of round trips takes. */
const BUSY_MS = 1_000;

/**
 * The echo extension beside a neighbour that computes on the same worker thread (guests share workers): the
 * latency cost of sharing. A block starts the neighbour's long call and times round trips while it runs.
 */
async function besideSpinner(): Promise<{ host: ExtensionHost; block: () => Promise<number[]> }> {
	const host = new ExtensionHost({ mode: "print" });
	const spec = (dir: string) => quickjsSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 60_000 });
	const report = await host.load([spec(SPINNER), spec(fixtureDirs("quickjs", 1)[0]!)]);
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	const shared = quickjsWorkers().find((w) => w.guests.includes("bench-spin-quickjs"));
	if (!shared?.guests.includes("bench-echo-quickjs-0"))
		throw new Error("the spinner and the echo are on different workers");
	const args = { text: "hi" };
	return {
		host,
		block: async () => {
			const busy = host.invokeTool("busy", "b", { ms: BUSY_MS });
			// The neighbour's call is on the worker before the first round trip is.
			await new Promise((resolve) => setTimeout(resolve, 5));
			const samples = await timeEach(() => host.invokeTool("echo", "c", args), ROUND_TRIPS / 4, "µs");
			await busy;
			return samples;
		},
	};
}

async function loadOnce(kind: "quickjs" | "process"): Promise<number> {
	let host: ExtensionHost | undefined;
	const ms = await timeOnce(async () => {
		host = await echoHost(kind, 1);
	});
	await host?.shutdown("bench");
	return ms;
}

function memoryPerExtension(): number {
	const out = execFileSync(process.execPath, ["--expose-gc", MEMORY_CHILD, String(IDLE_EXTENSIONS)], {
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
	});
	return (JSON.parse(out.trim().split("\n").at(-1)!) as { perExtensionMiB: number }).perExtensionMiB;
}

export async function benchQuickjs(ctx: BenchContext): Promise<Result[]> {
	const processHost = await echoHost("process", 1);
	const qjs = await echoHost("quickjs", 1);
	const ten = await echoHost("quickjs", 10);
	const beside = await besideSpinner();
	const args = { text: "hi" };
	const call = () => qjs.invokeTool("echo", "c", args);
	const processCall = () => processHost.invokeTool("echo", "c", args);
	const processSide = {
		title: "process extension tool round trip",
		run: () => timeEach(processCall, ROUND_TRIPS, "µs"),
	};
	try {
		return await compareAll(ctx, [
			{
				id: "quickjs.roundtrip",
				title: "QuickJS tool round trip",
				unit: "µs",
				run: () => timeEach(call, ROUND_TRIPS, "µs"),
				baseline: { ...processSide, id: "process.roundtrip" },
			},
			{
				id: "quickjs.command.roundtrip",
				title: "QuickJS command round trip",
				unit: "µs",
				run: () => timeEach(() => qjs.invokeCommand("ping", ""), ROUND_TRIPS, "µs"),
				baseline: processSide,
			},
			{
				id: "quickjs.fanout.10",
				title: "event fan-out to 10 QuickJS extensions",
				unit: "µs",
				run: () => timeEach(() => ten.emit("turn_start", { type: "turn_start" }), ROUND_TRIPS / 4, "µs"),
				baseline: { title: "one QuickJS tool round trip", run: () => timeEach(call, ROUND_TRIPS / 4, "µs") },
			},
			{
				id: "quickjs.roundtrip.beside-spinner",
				title: `QuickJS tool round trip while a guest on its worker computes for ${BUSY_MS} ms`,
				unit: "µs",
				run: beside.block,
				baseline: { title: "QuickJS tool round trip", run: () => timeEach(call, ROUND_TRIPS / 4, "µs") },
			},
			{
				id: "quickjs.load",
				title: "QuickJS load (create → ready)",
				unit: "ms",
				run: () => loadOnce("quickjs"),
				baseline: { title: "process extension load", run: () => loadOnce("process") },
			},
			{
				id: "quickjs.memory.per-extension",
				title: `resident memory per idle QuickJS extension, ${IDLE_EXTENSIONS} loaded (fresh process each)`,
				unit: "MiB",
				run: memoryPerExtension,
				warmup: 0,
			},
		]);
	} finally {
		await processHost.shutdown("bench");
		await qjs.shutdown("bench");
		await ten.shutdown("bench");
		await beside.host.shutdown("bench");
	}
}
