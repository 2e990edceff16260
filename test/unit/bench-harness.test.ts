/** The bench harness's pure parts: the A B order, the median of pair ratios, the JSON lines. No timing. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	alternation,
	type FigureLine,
	formatNumber,
	jsonLines,
	median,
	pairRatios,
	quantile,
	resultOf,
	selector,
	sig3,
	table,
} from "../../bench/figures.js";
import {
	type BenchContext,
	compare,
	compareAll,
	legacySuite,
	MIN_PAIRS,
	printRows,
	runAlternated,
	setLegacyOutput,
} from "../../bench/harness.js";

const ctx = (only?: string): BenchContext => ({ pairs: MIN_PAIRS, wants: selector(only), log: () => {} });

describe("bench harness", () => {
	test("blocks alternate A B A B …, A first, one pair per pair", () => {
		assert.deepEqual(alternation(3, true), ["A", "B", "A", "B", "A", "B"]);
		assert.deepEqual(alternation(3, false), ["A", "A", "A"]);
	});

	test("runAlternated calls the figure and its baseline in turn and keeps each side's blocks in order", async () => {
		const calls: string[] = [];
		let a = 0;
		let b = 100;
		const out = await runAlternated(
			alternation(4, true),
			() => {
				calls.push("A");
				return [++a, a];
			},
			async () => {
				calls.push("B");
				return ++b;
			},
		);
		assert.deepEqual(calls, ["A", "B", "A", "B", "A", "B", "A", "B"]);
		assert.deepEqual(out.a, [
			[1, 1],
			[2, 2],
			[3, 3],
			[4, 4],
		]);
		assert.deepEqual(out.b, [[101], [102], [103], [104]]);
	});

	test("compare warms each side up, then runs MIN_PAIRS pairs; fewer pairs are refused", async () => {
		const calls: string[] = [];
		const spec = {
			id: "x.y",
			title: "x",
			unit: "µs" as const,
			run: () => calls.push("A") && 2,
			baseline: { title: "b", run: () => calls.push("B") && 1 },
		};
		const result = await compare(spec, MIN_PAIRS);
		assert.equal(MIN_PAIRS >= 7, true);
		assert.deepEqual(calls, ["A", "B", ...alternation(MIN_PAIRS, true)]);
		assert.equal(result.pairs, MIN_PAIRS);
		assert.equal(result.ratio, 2);
		await assert.rejects(compare(spec, MIN_PAIRS - 1), /x\.y: 6 pairs; at least 7 are needed/);
	});

	test("the ratio is the median of the pair ratios, not the ratio of the medians", () => {
		// Drift: the machine slows down over the run, the figure stays at 1.5× its baseline in every pair.
		const a = [[3], [6], [9], [30], [60]];
		const b = [[2], [4], [6], [20], [40]];
		assert.deepEqual(pairRatios(a, b), [1.5, 1.5, 1.5, 1.5, 1.5]);
		const result = resultOf({ id: "f", title: "f", unit: "ms", baseline: { title: "b" } }, a, b);
		assert.equal(result.ratio, 1.5);
		// One pair far off moves the median of ratios not at all; medians of the two sides move apart.
		const skew = resultOf(
			{ id: "f", title: "f", unit: "ms", baseline: { title: "b" } },
			[[3], [3], [3], [3], [100]],
			[[2], [2], [2], [2], [1]],
		);
		assert.equal(skew.ratio, 1.5);
		// A block counts by its median.
		assert.deepEqual(pairRatios([[1, 2, 9]], [[1, 1, 1]]), [2]);
		assert.throws(() => pairRatios([[1]], []), /1 figure blocks but 0 baseline blocks/);
	});

	test("median, quantiles and three significant digits", () => {
		assert.equal(median([5, 1, 3]), 3);
		assert.equal(median([4, 1, 3, 2]), 2.5);
		assert.equal(
			quantile(
				[...Array(100).keys()].map((i) => i + 1),
				0.99,
			),
			99,
		);
		assert.equal(quantile([7], 0.99), 7);
		assert.throws(() => median([]), /no samples/);
		assert.equal(sig3(0.041234), 0.0412);
		assert.equal(sig3(12.345), 12.3);
		assert.equal(sig3(123456), 123000);
		assert.equal(formatNumber(0.0000412), "0.0000412");
		assert.equal(formatNumber(1234.5), "1,230");
		assert.equal(formatNumber(18.25), "18.3");
	});

	test("a rate's p99 is its slow tail", () => {
		const rates = [...Array(100).keys()].map((i) => (i + 1) * 1000);
		const r = resultOf(
			{ id: "t", title: "t", unit: "/s" },
			rates.map((x) => [x]),
		);
		assert.equal(r.figure.p99, 1000);
		const t = resultOf(
			{ id: "t", title: "t", unit: "ms" },
			rates.map((x) => [x]),
		);
		assert.equal(t.figure.p99, 99_000);
	});

	test("JSON: one line per figure with id, median, p99, unit; baseline and ratio when there is one", () => {
		const withBase = resultOf(
			{ id: "process.roundtrip", title: "p", unit: "µs", baseline: { title: "pipe", id: "pipe.roundtrip" } },
			[[30.04], [30.04]],
			[[10.001], [20.002]],
		);
		const alone = resultOf({ id: "quickjs.memory.per-extension", title: "m", unit: "MiB" }, [[9.31234], [9.4]]);
		const shared = resultOf(
			{ id: "other", title: "o", unit: "µs", baseline: { title: "pipe", id: "pipe.roundtrip" } },
			[[1]],
			[[1]],
		);
		const lines = jsonLines([withBase, alone, shared]).map((l) => JSON.parse(l) as FigureLine);
		assert.deepEqual(
			lines.map((l) => l.id),
			["process.roundtrip", "pipe.roundtrip", "quickjs.memory.per-extension", "other"],
			"a baseline with an id gets its own line, once",
		);
		const [figure, pipe, memory] = lines;
		assert.deepEqual(
			{ ...figure, title: undefined },
			{
				id: "process.roundtrip",
				median: 30,
				p99: 30,
				unit: "µs",
				baseline: 15,
				baselineP99: 20,
				ratio: 2.25,
				pairs: 2,
				samples: 2,
				title: undefined,
				baselineTitle: "pipe",
				baselineId: "pipe.roundtrip",
			},
		);
		assert.deepEqual(Object.keys(pipe!).sort(), ["id", "median", "p99", "pairs", "samples", "title", "unit"]);
		assert.equal(pipe!.median, 15);
		assert.equal(memory!.median, 9.36);
		assert.equal(memory!.unit, "MiB");
		assert.equal("baseline" in memory!, false);
		assert.equal("ratio" in memory!, false);
		for (const line of jsonLines([withBase, alone])) assert.doesNotMatch(line, /\n/);
	});

	test("PIER_BENCH_ONLY selects by id prefix, several separated by commas", () => {
		const all = selector(undefined);
		assert.equal(all("anything"), true);
		const some = selector("startup.run, hydrate.");
		assert.equal(some("startup.run"), true);
		assert.equal(some("startup.version"), false);
		assert.equal(some("hydrate.100000"), true);
		assert.equal(some("sse.raw.1000"), false);
	});

	test("compareAll runs a figure when its id or its baseline's id is selected, and only then", async () => {
		const ran: string[] = [];
		const spec = (id: string, baseId?: string) => ({
			id,
			title: id,
			unit: "ms" as const,
			run: () => ran.push(id) && 1,
			baseline: { title: "b", ...(baseId ? { id: baseId } : {}), run: () => 1 },
		});
		const results = await compareAll(ctx("startup.node"), [
			spec("startup.version", "startup.node"),
			spec("startup.run"),
		]);
		assert.deepEqual(
			results.map((r) => r.id),
			["startup.version"],
		);
		assert.equal(new Set(ran).size, 1);
	});

	test("a first-harness bench still prints its table; its rows with an id become lines marked not alternated", async () => {
		let printed = "";
		setLegacyOutput((text) => {
			printed += text;
		});
		try {
			const suite = legacySuite("native", async (runs) => {
				const s = (m: number) => ({ runs, median: m, p99: m * 2 });
				printRows("native", [
					{ id: "native.roundtrip", figure: "native tool round trip", value: s(0.02), baseline: "pipe", base: s(0.04) },
					{ figure: "no id", value: s(1), baseline: "x", base: s(1) },
				]);
			});
			const results = await suite.run(ctx());
			assert.match(printed, /\| native tool round trip \(20 runs\) \| 0\.02 ms \| 0\.04 ms \| pipe \| 0\.04 ms/);
			assert.match(printed, /no id/);
			const lines = jsonLines(results).map((l) => JSON.parse(l) as FigureLine);
			assert.deepEqual(
				lines.map((l) => [l.id, l.median, l.ratio, l.alternated]),
				[["native.roundtrip", 0.02, 0.5, false]],
			);
			assert.match(table("t", results), /0\.5× \(not alternated\)/);
		} finally {
			setLegacyOutput((text) => void process.stdout.write(text));
		}
	});
});
