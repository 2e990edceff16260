/**
 * The bench harness. A figure is registered as a `FigureSpec` (its id, unit, one block of its own work and one
 * of its baseline's) and measured by `compare`, which runs the blocks alternately, A B A B …, for at least
 * `MIN_PAIRS` pairs (figures.ts has the arithmetic). A suite is a group of figures sharing a set-up (a host, a
 * daemon); run.ts lists the suites.
 *
 * The first harness (`measure`, `stats`, `printRows`, `coldProcess`) still works for a bench written against
 * it: `legacySuite` runs such a bench, prints its table, and turns each of its rows that carries an `id` into a
 * JSON line marked `alternated: false` (its baseline was measured once, beside it, not in pairs).
 */
import { spawnSync } from "node:child_process";
import { alternation, type Result, resultOf, type Side, table, type Unit } from "./figures.js";

export type { Result, Unit } from "./figures.js";

/** One block of work: its samples in the figure's unit (a single number is one sample). */
export type Block = () => Promise<number | readonly number[]> | number | readonly number[];

export interface FigureSpec {
	/** The JSON id, e.g. `process.roundtrip`. */
	id: string;
	/** The human table's name for it. */
	title: string;
	unit: Unit;
	run: Block;
	/** What explains the figure, measured in the same run between the figure's blocks. */
	baseline?: {
		title: string;
		/** When the baseline is a figure of its own (e.g. `pipe.jsonl-echo`), its id: it gets its own line. */
		id?: string;
		run: Block;
	};
	/** Untimed blocks of each side before the pairs. Default 1. */
	warmup?: number;
}

/** The floor: fewer pairs say little about a median ratio. */
export const MIN_PAIRS = 7;

export interface BenchContext {
	/** Pairs per figure (≥ MIN_PAIRS). */
	pairs: number;
	/** Whether `PIER_BENCH_ONLY` selects this id: a suite sets up only what its selected figures need. */
	wants(id: string): boolean;
	/** Progress, to stderr. */
	log(message: string): void;
}

export interface Suite {
	/** Its section in the human table; `PIER_BENCH_ONLY=<name>` selects every figure of it. */
	name: string;
	run(ctx: BenchContext): Promise<Result[]>;
	/** A first-harness bench: it prints its own tables. */
	legacy?: boolean;
}

const toBlock = (samples: number | readonly number[]): number[] =>
	typeof samples === "number" ? [samples] : [...samples];

/**
 * Runs the blocks in the alternation's order; A's blocks and B's blocks, in order. No clock here: the blocks
 * time themselves.
 */
export async function runAlternated(
	order: readonly Side[],
	a: Block,
	b?: Block,
): Promise<{ a: number[][]; b: number[][] }> {
	const out = { a: [] as number[][], b: [] as number[][] };
	for (const side of order) {
		if (side === "A") out.a.push(toBlock(await a()));
		else if (b) out.b.push(toBlock(await b()));
		else throw new Error("a B block without a baseline");
	}
	return out;
}

/** Measures one figure: warm-up blocks, then `pairs` pairs, A B A B …; its result. */
export async function compare(spec: FigureSpec, pairs: number): Promise<Result> {
	if (pairs < MIN_PAIRS) throw new Error(`${spec.id}: ${pairs} pairs; at least ${MIN_PAIRS} are needed`);
	for (let i = 0; i < (spec.warmup ?? 1); i++) {
		await spec.run();
		await spec.baseline?.run();
	}
	const blocks = await runAlternated(alternation(pairs, spec.baseline !== undefined), spec.run, spec.baseline?.run);
	return resultOf(spec, blocks.a, spec.baseline ? blocks.b : undefined);
}

/**
 * Runs the suite's selected figures in order, one after the other (each alternates with its baseline); a
 * figure is skipped unless its id or its baseline's is selected.
 */
export async function compareAll(ctx: BenchContext, specs: readonly FigureSpec[]): Promise<Result[]> {
	const results: Result[] = [];
	for (const spec of specs) {
		const base = spec.baseline?.id;
		if (!ctx.wants(spec.id) && !(base && ctx.wants(base))) continue;
		ctx.log(`  ${spec.id}`);
		results.push(await compare(spec, ctx.pairs));
	}
	return results;
}

const NS: Record<string, number> = { ns: 1, µs: 1e3, ms: 1e6, s: 1e9 };

/** `count` sequential calls of `fn`, each timed: samples in `unit` (a time unit). */
export async function timeEach(fn: () => unknown, count: number, unit: Unit = "µs"): Promise<number[]> {
	const per = NS[unit];
	if (!per) throw new Error(`timeEach: ${unit} is not a time unit`);
	const samples: number[] = [];
	for (let i = 0; i < count; i++) {
		const start = process.hrtime.bigint();
		await fn();
		samples.push(Number(process.hrtime.bigint() - start) / per);
	}
	return samples;
}

/** One timed call of `fn`, in `unit`. */
export async function timeOnce(fn: () => unknown, unit: Unit = "ms"): Promise<number> {
	return (await timeEach(fn, 1, unit))[0]!;
}

/** `count` calls fired `batch` at a time (each batch awaited): calls per second. */
export async function ratePerSecond(fire: () => Promise<unknown>, count: number, batch = 1_000): Promise<number> {
	const start = process.hrtime.bigint();
	for (let done = 0; done < count; done += batch) {
		await Promise.all(Array.from({ length: Math.min(batch, count - done) }, fire));
	}
	return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

/** A cold process: spawn, wait for exit, fail loudly if it did not succeed. */
export function coldProcess(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) {
	return () => {
		const result = spawnSync(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
		if (result.status !== 0) {
			throw new Error(`${command} ${args.join(" ")} exited ${result.status}: ${result.stderr.toString()}`);
		}
	};
}

// ---- the first harness, kept for benches written against it --------------------------------------------

export interface Stats {
	runs: number;
	median: number;
	p99: number;
}

export function stats(samples: readonly number[]): Stats {
	const sorted = [...samples].sort((a, b) => a - b);
	const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
	return { runs: sorted.length, median: at(0.5), p99: at(0.99) };
}

/** Times `fn` `runs` times after `warmup` untimed runs; milliseconds. */
export async function measure(fn: () => unknown, runs: number, warmup = 1): Promise<Stats> {
	for (let i = 0; i < warmup; i++) await fn();
	return stats(await timeEach(fn, runs, "ms"));
}

export interface Row {
	figure: string;
	value: Stats;
	baseline: string;
	base: Stats;
	unit?: string;
	/** With an id, the row is also a JSON line (`alternated: false`). */
	id?: string;
}

/** Where `printRows` writes (stderr under `--json`) and the rows it has seen since the last `takeRows`. */
const legacy: { out: (text: string) => void; rows: Row[] } = {
	out: (text) => void process.stdout.write(text),
	rows: [],
};

export function printRows(title: string, rows: readonly Row[]): void {
	legacy.rows.push(...rows);
	const results = rows.map((r) => rowResult(r));
	legacy.out(table(title, results));
}

const UNITS = new Set<string>(["µs", "ms", "s", "ns", "MiB", "/s"]);

function rowResult(r: Row): Result {
	const unit = (UNITS.has(r.unit ?? "ms") ? (r.unit ?? "ms") : "ms") as Unit;
	const summary = (s: Stats) => ({ median: s.median, p99: s.p99, samples: s.runs });
	return {
		id: r.id ?? "-",
		title: r.figure,
		unit,
		pairs: 1,
		figure: summary(r.value),
		baseline: { ...summary(r.base), title: r.baseline },
		ratio: r.value.median / r.base.median,
		alternated: false,
	};
}

/** A bench written against the first harness (`(runs) => Promise<void>` calling `printRows`) as a suite. */
export function legacySuite(name: string, bench: (runs: number) => Promise<void>, runs = 20): Suite {
	return {
		name,
		legacy: true,
		async run(ctx) {
			legacy.rows = [];
			await bench(runs);
			return legacy.rows.filter((r) => r.id && ctx.wants(r.id)).map(rowResult);
		},
	};
}

/** run.ts: under `--json`, the first harness's tables go to stderr. */
export function setLegacyOutput(out: (text: string) => void): void {
	legacy.out = out;
}
