/**
 * QuickJS extensions: load (create → ready), tool round trip beside the process
 * runtime and an in-process call, event fan-out to 10 extensions, and resident
 * memory with 1, 10 and 50 loaded extensions.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { processSpec } from "../src/extensions/runtimes/process/launcher.js";
import { quickjsSpec } from "../src/extensions/runtimes/quickjs/launcher.js";
import { measure, printRows, stats } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const QJS = join(ROOT, "bench", "fixtures", "echo-quickjs");
const PROC = join(ROOT, "bench", "fixtures", "echo-extension");

async function hostWith(count: number, kind: "quickjs" | "process"): Promise<ExtensionHost> {
	const host = new ExtensionHost({ mode: "print", maxParallelLoads: Math.min(count, 8) });
	const manifest = loadManifest(kind === "quickjs" ? QJS : PROC);
	const spec = () =>
		kind === "quickjs"
			? quickjsSpec(manifest, { cwd: ROOT, projectTrusted: true, deadlineMs: 60_000 })
			: processSpec(manifest, { cwd: ROOT, projectTrusted: true });
	const report = await host.load(Array.from({ length: count }, spec));
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	return host;
}

const mib = (bytes: number) => bytes / 1024 / 1024;

export async function benchQuickjs(runs: number): Promise<void> {
	const loads: number[] = [];
	for (let i = 0; i < Math.max(3, Math.floor(runs / 2)); i++) {
		const start = process.hrtime.bigint();
		const h = await hostWith(1, "quickjs");
		loads.push(Number(process.hrtime.bigint() - start) / 1e6);
		await h.shutdown("bench");
	}
	const procLoads: number[] = [];
	for (let i = 0; i < Math.max(3, Math.floor(runs / 2)); i++) {
		const start = process.hrtime.bigint();
		const h = await hostWith(1, "process");
		procLoads.push(Number(process.hrtime.bigint() - start) / 1e6);
		await h.shutdown("bench");
	}

	const args = { text: "hi" };
	const qjs = await hostWith(1, "quickjs");
	const qjsRound = await measure(() => qjs.invokeTool("echo", "c", args), runs * 50, 100);
	const qjsCommand = await measure(() => qjs.invokeCommand("ping", ""), runs * 50, 100);
	await qjs.shutdown("bench");
	const proc = await hostWith(1, "process");
	const procRound = await measure(() => proc.invokeTool("echo", "c", args), runs * 50, 100);
	await proc.shutdown("bench");
	const plain = async (text: string) => ({ content: [{ type: "text", text }] });
	const inRound = await measure(() => plain("hi"), runs * 50, 100);

	const ten = await hostWith(10, "quickjs");
	const fanOut = await measure(() => ten.emit("turn_start", { type: "turn_start" }), runs * 5, 10);
	await ten.shutdown("bench");

	const rows = [
		{
			figure: "QuickJS load (create → ready)",
			value: stats(loads),
			baseline: "process extension load",
			base: stats(procLoads),
		},
		{ figure: "QuickJS tool round trip", value: qjsRound, baseline: "process extension", base: procRound },
		{ figure: "QuickJS tool round trip", value: qjsRound, baseline: "plain in-process call", base: inRound },
		{ figure: "QuickJS command round trip", value: qjsCommand, baseline: "plain in-process call", base: inRound },
		{
			figure: "event fan-out to 10 QuickJS extensions",
			value: fanOut,
			baseline: "one QuickJS round trip",
			base: qjsRound,
		},
	];
	const baseRss = process.memoryUsage().rss;
	for (const count of [1, 10, 50]) {
		const h = await hostWith(count, "quickjs");
		const rss = process.memoryUsage().rss;
		await h.shutdown("bench");
		const value = mib(rss - baseRss);
		rows.push({
			figure: `resident memory, ${count} QuickJS extensions`,
			value: { runs: 1, median: value, p99: value },
			baseline: "pier process before loading",
			base: { runs: 1, median: mib(baseRss), p99: mib(baseRss) },
			unit: "MiB",
		} as (typeof rows)[number]);
	}
	printRows("QuickJS extensions", rows);
}
