/**
 * `npm run bench`: every figure beside its same-run baseline, alternated A B A B …, as tables.
 * `npm run bench -- --json` (or `node dist/bench/run.js --json`): one JSON object per line per figure
 * (figures.ts `FigureLine`), and the tables on stderr.
 *
 * `PIER_BENCH_ONLY=<prefix>[,<prefix>…]` selects figures by id prefix (`process`, `startup.run`, `hydrate.`)
 * or a whole suite by name (`chamber`); `PIER_BENCH_PAIRS` sets the pairs per figure (default 9, at least 7).
 * The figures are wall-clock times on whatever else the machine is doing: the ratios, taken pair by pair, are
 * the steadier part.
 */
import { benchChamber } from "./chamber.js";
import { benchChamberOpen } from "./chamber-open.js";
import { jsonLines, type Result, selector, table } from "./figures.js";
import { type BenchContext, MIN_PAIRS, type Suite, setLegacyOutput } from "./harness.js";
import { benchIdle } from "./idle.js";
import { benchMetrics } from "./metrics.js";
import { benchNative } from "./native.js";
import { benchOneCpu } from "./one-cpu.js";
import { benchProcess } from "./process.js";
import { benchQuickjs } from "./quickjs.js";
import { benchStartup } from "./startup.js";

/** Every suite, in order. A new one goes here: `{ name, run: (ctx) => compareAll(ctx, [...figures]) }`. */
const SUITES: Suite[] = [
	{ name: "startup", run: benchStartup },
	{ name: "process", run: benchProcess },
	{ name: "quickjs", run: benchQuickjs },
	{ name: "native", run: benchNative },
	{ name: "one-cpu", run: benchOneCpu },
	{ name: "chamber", run: benchChamber },
	{ name: "chamber-web", run: benchChamberOpen },
	{ name: "metrics", run: benchMetrics },
	{ name: "idle", run: benchIdle },
];

const json = process.argv.includes("--json");
const human = (text: string) => void (json ? process.stderr : process.stdout).write(text);
setLegacyOutput(human);
const pairs = Math.max(MIN_PAIRS, Number(process.env.PIER_BENCH_PAIRS ?? 9) || 9);
const select = selector(process.env.PIER_BENCH_ONLY);
const printed = new Set<string>();

human(`pier benchmarks · node ${process.version} · ${pairs} alternated pairs per figure\n`);
for (const suite of SUITES) {
	const whole = select(suite.name);
	const ctx: BenchContext = {
		pairs,
		wants: (id) => whole || select(id),
		log: (message) => void process.stderr.write(`${message}\n`),
	};
	ctx.log(`${suite.name}…`);
	let results: Result[];
	try {
		results = await suite.run(ctx);
	} catch (error) {
		// One suite's failure (a missing build, a port in use) is reported, and the other suites still run.
		process.stderr.write(`bench ${suite.name} failed: ${(error as Error).stack ?? error}\n`);
		process.exitCode = 1;
		continue;
	}
	if (results.length === 0) continue;
	if (!suite.legacy) human(table(suite.name, results));
	if (json) for (const line of jsonLines(results, printed)) process.stdout.write(`${line}\n`);
}
// Extension child processes and timers must not keep the benchmark alive.
process.exit(process.exitCode ?? 0);
