/**
 * The bench's arithmetic and output, with no clock in it (so it is unit-tested): the A B A B order of a figure
 * and its baseline, the median of the pair ratios, three significant digits, and the JSON line per figure.
 *
 * A figure is measured in pairs: one block of the figure (A), then one block of its baseline (B), repeated.
 * Drift over the run (JIT warm-up, another process taking a core, thermal limits) then falls on both sides of
 * each pair alike, and the median of the per-pair ratios A/B is the figure relative to its baseline with most
 * of that drift divided out. A block is one or more samples in the figure's unit (a block of round trips, one
 * cold start, one burst's rate); a pair's ratio compares the blocks' medians.
 */

/** `%`: a share of one CPU core. */
export type Unit = "µs" | "ms" | "s" | "ns" | "KiB" | "MiB" | "/s" | "%";

/** What `--json` prints for one figure, one line each. */
export interface FigureLine {
	id: string;
	median: number;
	/** The slow tail: the 99th percentile of a time, the 1st of a rate (`/s`). */
	p99: number;
	unit: Unit;
	/** The baseline's median (same unit), when the figure has a baseline. */
	baseline?: number;
	baselineP99?: number;
	/** The median of the pair ratios figure/baseline (not the ratio of the medians). */
	ratio?: number;
	/** Pairs (or blocks, without a baseline) and samples behind the figure. */
	pairs: number;
	samples: number;
	title: string;
	baselineTitle?: string;
	/** The baseline's own id, when it is also a figure of its own (printed on its own line too). */
	baselineId?: string;
	/** False for figures from a legacy bench (`printRows`), whose baseline was not alternated. */
	alternated?: false;
}

export interface Summary {
	median: number;
	p99: number;
	samples: number;
}

export interface Result {
	id: string;
	title: string;
	unit: Unit;
	pairs: number;
	figure: Summary;
	baseline?: Summary & { title: string; id?: string };
	/** Median of the pair ratios figure/baseline. */
	ratio?: number;
	alternated?: false;
}

export type Side = "A" | "B";

/** The order blocks run in: A B A B … for `pairs` pairs (A only without a baseline). */
export function alternation(pairs: number, withBaseline: boolean): Side[] {
	const order: Side[] = [];
	for (let i = 0; i < pairs; i++) {
		order.push("A");
		if (withBaseline) order.push("B");
	}
	return order;
}

/** The q-quantile (0 < q ≤ 1) by the nearest-rank method: always one of the samples. */
export function quantile(samples: readonly number[], q: number): number {
	if (samples.length === 0) throw new Error("no samples");
	const sorted = [...samples].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** The median; for an even count, the mean of the two middle samples. */
export function median(samples: readonly number[]): number {
	if (samples.length === 0) throw new Error("no samples");
	const sorted = [...samples].sort((a, b) => a - b);
	const mid = sorted.length >> 1;
	return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Median and p99. For a rate (`/s`, higher is better) the p99 is the slow tail too: the rate 99% of the
 * samples reach (the 1st percentile).
 */
export function summary(samples: readonly number[], unit?: Unit): Summary {
	const p99 = quantile(samples, unit === "/s" ? 0.01 : 0.99);
	return { median: median(samples), p99, samples: samples.length };
}

/** A/B for each pair of blocks, each block by its median. */
export function pairRatios(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): number[] {
	if (a.length !== b.length) throw new Error(`${a.length} figure blocks but ${b.length} baseline blocks`);
	return a.map((block, i) => median(block) / median(b[i]!));
}

/** A figure's result from its blocks (and its baseline's, one per pair). */
export function resultOf(
	spec: { id: string; title: string; unit: Unit; baseline?: { title: string; id?: string } },
	a: readonly (readonly number[])[],
	b?: readonly (readonly number[])[],
): Result {
	const result: Result = {
		id: spec.id,
		title: spec.title,
		unit: spec.unit,
		pairs: a.length,
		figure: summary(a.flat(), spec.unit),
	};
	if (spec.baseline && b) {
		result.baseline = {
			...summary(b.flat(), spec.unit),
			title: spec.baseline.title,
			...(spec.baseline.id ? { id: spec.baseline.id } : {}),
		};
		result.ratio = median(pairRatios(a, b));
	}
	return result;
}

/** Three significant digits (as a number: 0.0412, 12.3, 1230). */
export function sig3(n: number): number {
	if (!Number.isFinite(n) || n === 0) return n;
	return Number(n.toPrecision(3));
}

/** Three significant digits, without an exponent (1230, not 1.23e+3). */
export function formatNumber(n: number): string {
	const v = sig3(n);
	if (!Number.isFinite(v)) return String(v);
	return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en") : String(v);
}

/** The JSON lines of a result: the figure's, then its baseline's own when the baseline has an id. */
export function linesOf(result: Result): FigureLine[] {
	const line: FigureLine = {
		id: result.id,
		median: sig3(result.figure.median),
		p99: sig3(result.figure.p99),
		unit: result.unit,
		pairs: result.pairs,
		samples: result.figure.samples,
		title: result.title,
		...(result.alternated === false ? { alternated: false as const } : {}),
	};
	const base = result.baseline;
	if (!base) return [line];
	Object.assign(line, {
		baseline: sig3(base.median),
		baselineP99: sig3(base.p99),
		ratio: sig3(result.ratio ?? result.figure.median / base.median),
		baselineTitle: base.title,
		...(base.id ? { baselineId: base.id } : {}),
	});
	if (!base.id) return [line];
	return [
		line,
		{
			id: base.id,
			median: sig3(base.median),
			p99: sig3(base.p99),
			unit: result.unit,
			pairs: result.pairs,
			samples: base.samples,
			title: base.title,
		},
	];
}

/** Every result's lines, each id once (the first wins: a baseline shared by two figures is printed once). */
export function jsonLines(results: readonly Result[], seen = new Set<string>()): string[] {
	const out: string[] = [];
	for (const result of results) {
		for (const line of linesOf(result)) {
			if (seen.has(line.id)) continue;
			seen.add(line.id);
			out.push(JSON.stringify(line));
		}
	}
	return out;
}

/** The human table of a group of results. */
export function table(title: string, results: readonly Result[]): string {
	const lines = [
		`\n## ${title}\n`,
		"| id | figure | median | p99 | baseline | median | p99 | ratio (median of pair ratios) |",
		"|---|---|---:|---:|---|---:|---:|---:|",
	];
	for (const r of results) {
		const u = ` ${r.unit}`;
		const runs =
			r.alternated === false
				? `${r.figure.samples} runs`
				: r.baseline
					? `${r.pairs} pairs`
					: `${r.figure.samples} samples`;
		const base = r.baseline
			? `${r.baseline.title} | ${formatNumber(r.baseline.median)}${u} | ${formatNumber(r.baseline.p99)}${u} | ${formatNumber(r.ratio!)}×${r.alternated === false ? " (not alternated)" : ""}`
			: "— | | | ";
		lines.push(
			`| ${r.id} | ${r.title} (${runs}) | ${formatNumber(r.figure.median)}${u} | ${formatNumber(r.figure.p99)}${u} | ${base} |`,
		);
	}
	return `${lines.join("\n")}\n`;
}

/** `PIER_BENCH_ONLY=a,b`: an id is selected when it starts with one of the prefixes (all without any). */
export function selector(only: string | undefined): (id: string) => boolean {
	const prefixes = (only ?? "")
		.split(",")
		.map((p) => p.trim())
		.filter(Boolean);
	return (id) => prefixes.length === 0 || prefixes.some((p) => id.startsWith(p));
}
