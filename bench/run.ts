/** `npm run bench`: every benchmark, each figure beside its same-run baseline. */
import { benchProcess } from "./process.js";
import { benchStartup } from "./startup.js";

const runs = Number(process.env.PIER_BENCH_RUNS ?? 20);
process.stdout.write(`pier benchmarks · node ${process.version} · ${runs} runs per figure\n`);
await benchStartup(runs);
await benchProcess(runs);
process.exit(0);
