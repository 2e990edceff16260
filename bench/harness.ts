/**
 * A tiny benchmark harness: every figure is printed beside a baseline measured
 * in the same run, on the same machine, so the numbers explain themselves.
 */
import { spawnSync } from "node:child_process";

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
	const samples: number[] = [];
	for (let i = 0; i < runs; i++) {
		const start = process.hrtime.bigint();
		await fn();
		samples.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
	return stats(samples);
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

export interface Row {
	figure: string;
	value: Stats;
	baseline: string;
	base: Stats;
	unit?: string;
}

const fmt = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));

export function printRows(title: string, rows: readonly Row[]): void {
	process.stdout.write(`\n## ${title}\n\n`);
	process.stdout.write("| figure | median | p99 | baseline | median | p99 | ratio (median) |\n");
	process.stdout.write("|---|---:|---:|---|---:|---:|---:|\n");
	for (const r of rows) {
		const unit = r.unit ?? "ms";
		process.stdout.write(
			`| ${r.figure} (${r.value.runs} runs) | ${fmt(r.value.median)} ${unit} | ${fmt(r.value.p99)} ${unit} | ${r.baseline} | ${fmt(r.base.median)} ${unit} | ${fmt(r.base.p99)} ${unit} | ${(r.value.median / r.base.median).toFixed(2)}× |\n`,
		);
	}
}
