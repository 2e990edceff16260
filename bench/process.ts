/**
 * Process extensions: tool round trip and pipelined throughput beside a raw
 * JSONL pipe echo and the same tool as an in-process pi extension; load time
 * (spawn → ready) for 1 and 10 extensions.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Type } from "@earendil-works/pi-ai";
import { createPierRuntime } from "../src/agent/session-factory.js";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { processSpec } from "../src/extensions/runtimes/process/launcher.js";
import { measure, printRows, type Stats, stats } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ECHO_EXTENSION = join(ROOT, "bench", "fixtures", "echo-extension");
const RAW_ECHO = join(ROOT, "bench", "fixtures", "raw-echo.mjs");

/** A raw pipe to a child that echoes lines: the floor any stdio protocol stands on. */
function rawPipe() {
	const child = spawn(process.execPath, [RAW_ECHO], { stdio: ["pipe", "pipe", "inherit"] });
	const waiting: Array<() => void> = [];
	let buffer = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		buffer += chunk;
		let nl = buffer.indexOf("\n");
		while (nl >= 0) {
			buffer = buffer.slice(nl + 1);
			waiting.shift()?.();
			nl = buffer.indexOf("\n");
		}
	});
	const line = `${JSON.stringify({ type: "request", id: "x", request: { kind: "invoke", invocation: { kind: "tool", name: "echo", callId: "c", arguments: { text: "hi" } } } })}\n`;
	return {
		roundTrip: () =>
			new Promise<void>((resolve) => {
				waiting.push(resolve);
				child.stdin.write(line);
			}),
		close: () => child.kill(),
	};
}

function perSecond(count: number, ms: number): Stats {
	const rate = (count / ms) * 1000;
	return { runs: 1, median: rate, p99: rate };
}

async function pipelined(count: number, fire: () => Promise<unknown>): Promise<Stats> {
	const start = process.hrtime.bigint();
	const batch = 1_000;
	for (let done = 0; done < count; done += batch) {
		await Promise.all(Array.from({ length: Math.min(batch, count - done) }, fire));
	}
	return perSecond(count, Number(process.hrtime.bigint() - start) / 1e6);
}

async function loadHost(count: number): Promise<ExtensionHost> {
	const manifest = loadManifest(ECHO_EXTENSION);
	const host = new ExtensionHost({ mode: "print", maxParallelLoads: count });
	const specs = Array.from({ length: count }, () => processSpec(manifest, { cwd: ROOT, projectTrusted: true }));
	const report = await host.load(specs);
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	return host;
}

export async function benchProcess(runs: number): Promise<void> {
	const calls = runs * 100;
	const throughputCalls = 50_000;

	const raw = rawPipe();
	await measure(raw.roundTrip, 200, 0);
	const rawRound = await measure(raw.roundTrip, calls, 0);
	const rawRate = await pipelined(throughputCalls, raw.roundTrip);
	raw.close();

	const host = await loadHost(1);
	const args = { text: "hi" };
	await measure(() => host.invokeTool("echo", "c", args), 200, 0);
	const hostRound = await measure(() => host.invokeTool("echo", "c", args), calls, 0);
	const hostRate = await pipelined(throughputCalls, () => host.invokeTool("echo", "c", args));
	await host.shutdown("bench");

	// The same tool as an in-process pi extension, called through the real session's tool list.
	const echo: AgentTool = {
		name: "echo",
		label: "Echo",
		description: "Echoes its text",
		parameters: Type.Object({ text: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: (params as { text: string }).text }], details: {} };
		},
	};
	const pier = await createPierRuntime({ tools: [echo], session: { kind: "memory" }, noExtensions: true });
	const inProcess = pier.runtime.session.agent.state.tools.find((t) => t.name === "echo")!;
	const inRound = await measure(() => inProcess.execute("c", args), calls, 200);
	const inRate = await pipelined(throughputCalls, () => inProcess.execute("c", args));
	await pier.dispose();

	const loads: Record<number, number[]> = { 1: [], 10: [] };
	for (const count of [1, 10] as const) {
		for (let i = 0; i < Math.max(3, Math.floor(runs / 2)); i++) {
			const start = process.hrtime.bigint();
			const h = await loadHost(count);
			loads[count]!.push(Number(process.hrtime.bigint() - start) / 1e6);
			await h.shutdown("bench");
		}
	}
	const bareSpawn = await measure(
		() =>
			new Promise<void>((resolve) => {
				spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("exit", () => resolve());
			}),
		Math.max(3, Math.floor(runs / 2)),
	);

	printRows("process extensions", [
		{ figure: "tool round trip, process extension", value: hostRound, baseline: "raw JSONL pipe echo", base: rawRound },
		{ figure: "tool round trip, process extension", value: hostRound, baseline: "in-process pi tool", base: inRound },
		{
			figure: "pipelined tool calls, process extension",
			value: hostRate,
			baseline: "raw JSONL pipe echo",
			base: rawRate,
			unit: "/s",
		},
		{
			figure: "pipelined tool calls, process extension",
			value: hostRate,
			baseline: "in-process pi tool",
			base: inRate,
			unit: "/s",
		},
		{
			figure: "load 1 extension (spawn → ready)",
			value: stats(loads[1]!),
			baseline: "spawn node -e 0",
			base: bareSpawn,
		},
		{
			figure: "load 10 extensions (spawn → ready)",
			value: stats(loads[10]!),
			baseline: "spawn node -e 0",
			base: bareSpawn,
		},
	]);
}
