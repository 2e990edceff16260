/**
 * `npm run parity`: every case of cases.ts, pi against pier, two at a time, then a table (example, print
 * result, RPC result, the first difference) or, with --json, the results as JSON.
 *
 *   npm run parity                       all 78
 *   npm run parity -- hello.ts pirate.ts only these examples
 *   npm run parity -- --json             machine-readable (with --full: the normalised outputs too)
 *   PARITY_SELF_CHECK=1 npm run parity   pi against pi: checks the harness itself
 *
 * Exit code: 0 when every case that ran is identical in both modes apart from known.ts's differences, 1 otherwise.
 */
import { CASES, type ParityCase } from "./cases.js";
import { type CaseResult, type ModeResult, runCase } from "./suite.js";

const PARALLELISM = 2;

async function runAll(cases: ParityCase[], keepOutputs: boolean, onDone: (r: CaseResult) => void) {
	const results: CaseResult[] = new Array(cases.length);
	let next = 0;
	const worker = async () => {
		while (next < cases.length) {
			const index = next++;
			const result = await runCase(cases[index]!, keepOutputs).catch(
				(error: unknown): CaseResult => ({
					example: cases[index]!.example,
					print: {
						identical: false,
						identicalButKnown: false,
						modes: [
							{
								mode: "text",
								identical: false,
								identicalButKnown: false,
								differences: [{ mode: "text", part: "exit", line: 0, pi: "harness error", pier: String(error) }],
							},
						],
					},
				}),
			);
			results[index] = result;
			onDone(result);
		}
	};
	await Promise.all(Array.from({ length: PARALLELISM }, worker));
	return results;
}

const clip = (text: string, n = 90) => (text.length > n ? `${text.slice(0, n)}…` : text);

function describe(modes: ModeResult[]): string {
	const all = modes.flatMap((m) => m.differences);
	const first = all.find((d) => d.known === undefined);
	if (!first) return all[0]?.known ? `on purpose: ${all[0].known}` : "";
	const parts = [...new Set(all.filter((d) => !d.known).map((d) => `${d.mode}:${d.part}`))].join(",");
	return `${parts} — ${first.mode} ${first.part} line ${first.line}: pi «${clip(first.pi)}» pier «${clip(first.pier)}»`;
}

const status = (r: { identical: boolean; identicalButKnown: boolean } | undefined) =>
	r?.identical ? "identical" : r?.identicalButKnown ? "known" : "DIFFERS";

function table(results: CaseResult[]): string {
	const width = Math.max(...results.map((r) => r.example.length), 7);
	const rows = [`${"example".padEnd(width)}  print      rpc        difference`];
	for (const r of results) {
		if (r.skipped) {
			rows.push(`${r.example.padEnd(width)}  skipped    skipped    ${r.skipped}`);
			continue;
		}
		const print = status(r.print);
		const rpc = status(r.rpc);
		const diff = describe([...(r.print?.modes ?? []), ...(r.rpc ? [r.rpc] : [])]);
		rows.push(`${r.example.padEnd(width)}  ${print.padEnd(9)}  ${rpc.padEnd(9)}  ${diff}`);
	}
	return rows.join("\n");
}

function summary(results: CaseResult[]) {
	const ran = results.filter((r) => !r.skipped);
	return {
		total: results.length,
		skipped: results.length - ran.length,
		printIdentical: ran.filter((r) => r.print?.identical).length,
		rpcIdentical: ran.filter((r) => r.rpc?.identical).length,
		printIdenticalButKnown: ran.filter((r) => r.print?.identicalButKnown).length,
		rpcIdenticalButKnown: ran.filter((r) => r.rpc?.identicalButKnown).length,
	};
}

async function main(): Promise<void> {
	const argv = process.argv.slice(2);
	const asJson = argv.includes("--json");
	const full = argv.includes("--full");
	const names = argv.filter((a) => !a.startsWith("--"));
	const unknown = names.filter((name) => !CASES.some((c) => c.example === name));
	if (unknown.length > 0) {
		process.stderr.write(`parity: no such example: ${unknown.join(", ")} (see test/parity/cases.ts)\n`);
		process.exit(2);
	}
	const cases = names.length > 0 ? CASES.filter((c) => names.includes(c.example)) : CASES;
	const started = Date.now();
	const results = await runAll(cases, full, (r) => {
		{
			const state = r.skipped ? "skipped" : `print ${status(r.print)}, rpc ${status(r.rpc)}`;
			process.stderr.write(`parity: ${r.example}: ${state}\n`);
		}
	});
	const counts = summary(results);
	if (asJson) {
		process.stdout.write(
			`${JSON.stringify({ ...counts, seconds: (Date.now() - started) / 1000, results }, null, 1)}\n`,
		);
	} else {
		process.stdout.write(`${table(results)}\n\n`);
		const { total } = counts;
		process.stdout.write(
			`print mode: ${counts.printIdentical} of ${total} identical, ${counts.printIdenticalButKnown} apart from known differences\n` +
				`RPC mode:   ${counts.rpcIdentical} of ${total} identical, ${counts.rpcIdenticalButKnown} apart from known differences\n` +
				`${counts.skipped} skipped, ${Math.round((Date.now() - started) / 1000)} s\n`,
		);
	}
	const ran = counts.total - counts.skipped;
	process.exitCode = counts.printIdenticalButKnown === ran && counts.rpcIdenticalButKnown === ran ? 0 : 1;
}

await main();
