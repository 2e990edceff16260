/**
 * QuickJS extensions: tool and command round trips beside a raw pipe echo (an in-process sandbox should beat
 * a process), event fan-out to 10 extensions beside one round trip, load beside a process extension's, and
 * the resident memory of 50 idle extensions, per extension (a fresh process per sample: quickjs-memory.ts).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ExtensionHost } from "../src/extensions/host/host.js";
import type { Result } from "./figures.js";
import { echoHost } from "./fixture-copies.js";
import { type BenchContext, compareAll, timeEach, timeOnce } from "./harness.js";
import { ROUND_TRIPS, rawPipe } from "./process.js";

const MEMORY_CHILD = fileURLToPath(new URL("./quickjs-memory.js", import.meta.url));
const IDLE_EXTENSIONS = 50;

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
	const raw = rawPipe();
	const qjs = await echoHost("quickjs", 1);
	const ten = await echoHost("quickjs", 10);
	const args = { text: "hi" };
	const call = () => qjs.invokeTool("echo", "c", args);
	const pipe = { title: "raw JSONL pipe echo", run: raw.block };
	try {
		return await compareAll(ctx, [
			{
				id: "quickjs.roundtrip",
				title: "QuickJS tool round trip",
				unit: "µs",
				run: () => timeEach(call, ROUND_TRIPS, "µs"),
				baseline: pipe,
			},
			{
				id: "quickjs.command.roundtrip",
				title: "QuickJS command round trip",
				unit: "µs",
				run: () => timeEach(() => qjs.invokeCommand("ping", ""), ROUND_TRIPS, "µs"),
				baseline: pipe,
			},
			{
				id: "quickjs.fanout.10",
				title: "event fan-out to 10 QuickJS extensions",
				unit: "µs",
				run: () => timeEach(() => ten.emit("turn_start", { type: "turn_start" }), ROUND_TRIPS / 4, "µs"),
				baseline: { title: "one QuickJS tool round trip", run: () => timeEach(call, ROUND_TRIPS / 4, "µs") },
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
		raw.close();
		await qjs.shutdown("bench");
		await ten.shutdown("bench");
	}
}
