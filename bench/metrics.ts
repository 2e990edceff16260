/**
 * What the host's per-extension metrics cost: the same echo tool through two hosts loaded side by side, one
 * recording metrics (the default) and one not (`metrics: false`), alternated pair by pair in one run so drift
 * (JIT warm-up, a busy core) falls on both alike. Process and QuickJS runtimes; and the record call itself.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { ExtensionMetrics } from "../src/extensions/host/metrics.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { processSpec } from "../src/extensions/runtimes/process/launcher.js";
import { quickjsSpec } from "../src/extensions/runtimes/quickjs/launcher.js";
import type { Result } from "./figures.js";
import { type BenchContext, compareAll, type FigureSpec, ratePerSecond, timeEach } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = { process: "echo-extension", quickjs: "echo-quickjs" } as const;

async function host(kind: keyof typeof FIXTURE, metrics: boolean): Promise<ExtensionHost> {
	const manifest = loadManifest(join(ROOT, "bench", "fixtures", FIXTURE[kind]));
	const spec =
		kind === "quickjs"
			? quickjsSpec(manifest, { cwd: ROOT, projectTrusted: true, deadlineMs: 60_000 })
			: processSpec(manifest, { cwd: ROOT, projectTrusted: true });
	const h = new ExtensionHost({ mode: "print", metrics });
	const report = await h.load([spec]);
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	return h;
}

/** ns per call of `body` over a loop of 2M calls. */
function loopNs(body: (i: number) => void): number {
	const n = 2_000_000;
	const start = process.hrtime.bigint();
	for (let i = 0; i < n; i++) body(i);
	return Number(process.hrtime.bigint() - start) / n;
}

export async function benchMetrics(ctx: BenchContext): Promise<Result[]> {
	const results: Result[] = [];
	for (const kind of ["process", "quickjs"] as const) {
		const ids = [`metrics.${kind}.roundtrip`, `metrics.${kind}.throughput`];
		if (!ids.some(ctx.wants)) continue;
		const on = await host(kind, true);
		const off = await host(kind, false);
		const args = { text: "hi" };
		const calls = (h: ExtensionHost) => () => timeEach(() => h.invokeTool("echo", "c", args), 500, "µs");
		const rate = (h: ExtensionHost) => () => ratePerSecond(() => h.invokeTool("echo", "c", args), 5_000);
		try {
			const specs: FigureSpec[] = [
				{
					id: ids[0]!,
					title: `tool round trip, ${kind}, metrics on`,
					unit: "µs",
					run: calls(on),
					baseline: { title: "metrics off", run: calls(off) },
				},
				{
					id: ids[1]!,
					title: `pipelined tool calls, ${kind}, metrics on`,
					unit: "/s",
					run: rate(on),
					baseline: { title: "metrics off", run: rate(off) },
				},
			];
			results.push(...(await compareAll(ctx, specs)));
			const recorded = on.metricsOf(on.instances[0]!.id)?.snapshot();
			ctx.log(
				`  ${kind}: the metered host recorded ${recorded?.invocations} invocations, p50 ${recorded?.p50Ms} ms, p99 ${recorded?.p99Ms} ms`,
			);
		} finally {
			await on.shutdown("bench");
			await off.shutdown("bench");
		}
	}
	// The record itself, beside the same loop summing: what each invocation pays.
	const m = new ExtensionMetrics();
	let sink = 0;
	results.push(
		...(await compareAll(ctx, [
			{
				id: "metrics.record",
				title: "ExtensionMetrics.record (2M calls)",
				unit: "ns",
				run: () => loopNs((i) => m.record((i % 1000) * 0.013 + 0.01)),
				baseline: {
					title: "the same loop, summing",
					run: () =>
						loopNs((i) => {
							sink += (i % 1000) * 0.013 + 0.01;
						}),
				},
			},
		])),
	);
	if (sink < 0) ctx.log("");
	return results;
}
