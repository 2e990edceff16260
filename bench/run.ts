/** `npm run bench`: every benchmark, each figure beside its same-run baseline. `PIER_BENCH_ONLY=process` picks one. */
import { benchChamber } from "./chamber.js";
import { benchMetrics } from "./metrics.js";
import { benchNative } from "./native.js";
import { benchProcess } from "./process.js";
import { benchQuickjs } from "./quickjs.js";
import { benchStartup } from "./startup.js";

const runs = Number(process.env.PIER_BENCH_RUNS ?? 20);
const only = process.env.PIER_BENCH_ONLY;
const benches: Record<string, (runs: number) => Promise<void>> = {
	startup: benchStartup,
	process: benchProcess,
	quickjs: benchQuickjs,
	native: benchNative,
	chamber: benchChamber,
	metrics: benchMetrics,
};
process.stdout.write(`pier benchmarks · node ${process.version} · ${runs} runs per figure\n`);
for (const [name, bench] of Object.entries(benches)) {
	if (!only || only === name) await bench(runs);
}
// Extension child processes and timers must not keep the benchmark alive.
process.exit(0);
