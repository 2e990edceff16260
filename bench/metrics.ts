/**
 * What the host's per-extension metrics cost: the same echo tool through two hosts loaded side by side, one
 * recording metrics (the default) and one not (`metrics: false`), measured in alternating blocks in one run so
 * drift (JIT warm-up, a busy core) falls on both alike. Process and QuickJS runtimes.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { ExtensionMetrics } from "../src/extensions/host/metrics.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { processSpec } from "../src/extensions/runtimes/process/launcher.js";
import { quickjsSpec } from "../src/extensions/runtimes/quickjs/launcher.js";
import { printRows, type Row, stats } from "./harness.js";

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

async function roundTrips(h: ExtensionHost, count: number, into: number[]): Promise<void> {
	const args = { text: "hi" };
	for (let i = 0; i < count; i++) {
		const start = process.hrtime.bigint();
		await h.invokeTool("echo", "c", args);
		into.push(Number(process.hrtime.bigint() - start) / 1e6);
	}
}

async function pipelined(h: ExtensionHost, count: number): Promise<number> {
	const args = { text: "hi" };
	const start = process.hrtime.bigint();
	for (let done = 0; done < count; done += 1_000)
		await Promise.all(Array.from({ length: 1_000 }, () => h.invokeTool("echo", "c", args)));
	return (count / (Number(process.hrtime.bigint() - start) / 1e6)) * 1000;
}

export async function benchMetrics(runs: number): Promise<void> {
	const rows: Row[] = [];
	const blocks = 10;
	for (const kind of ["process", "quickjs"] as const) {
		const on = await host(kind, true);
		const off = await host(kind, false);
		const samples = { on: [] as number[], off: [] as number[] };
		const rates = { on: [] as number[], off: [] as number[] };
		await roundTrips(on, 200, []);
		await roundTrips(off, 200, []);
		for (let b = 0; b < blocks; b++) {
			// Which goes first alternates too.
			const order = b % 2 === 0 ? (["on", "off"] as const) : (["off", "on"] as const);
			for (const which of order) await roundTrips(which === "on" ? on : off, runs * 10, samples[which]);
			for (const which of order) rates[which].push(await pipelined(which === "on" ? on : off, 5_000));
		}
		const recorded = on.metricsOf(on.instances[0]!.id)?.snapshot();
		process.stdout.write(
			`\n${kind}: the metered host recorded ${recorded?.invocations} invocations, p50 ${recorded?.p50Ms} ms, p99 ${recorded?.p99Ms} ms\n`,
		);
		rows.push(
			{
				figure: `tool round trip, ${kind}, metrics on`,
				value: stats(samples.on),
				baseline: "metrics off",
				base: stats(samples.off),
			},
			{
				figure: `pipelined tool calls, ${kind}, metrics on`,
				value: stats(rates.on),
				baseline: "metrics off",
				base: stats(rates.off),
				unit: "/s",
			},
		);
		await on.shutdown("bench");
		await off.shutdown("bench");
	}
	// The record itself, beside an empty loop: what each invocation pays.
	const m = new ExtensionMetrics();
	const loop = (body: (i: number) => void) => {
		const n = 2_000_000;
		const start = process.hrtime.bigint();
		for (let i = 0; i < n; i++) body(i);
		return Number(process.hrtime.bigint() - start) / n;
	};
	let sink = 0;
	const recordNs = Array.from({ length: 5 }, () => loop((i) => m.record((i % 1000) * 0.013 + 0.01)));
	const emptyNs = Array.from({ length: 5 }, () => loop((i) => (sink += (i % 1000) * 0.013 + 0.01)));
	rows.push({
		figure: "ExtensionMetrics.record (2M calls)",
		value: stats(recordNs),
		baseline: "the same loop, summing",
		base: stats(emptyNs),
		unit: "ns",
	});
	if (sink < 0) process.stdout.write("");
	printRows("extension metrics (alternating blocks, one run)", rows);
}
