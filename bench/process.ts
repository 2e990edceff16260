/**
 * Process extensions: tool round trip and pipelined throughput beside a raw JSONL pipe echo (the floor any
 * stdio protocol stands on), calls alternating between two extensions beside calls to one, and load time
 * (spawn → ready) for 1 and 10 extensions beside a bare spawn.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionHost } from "../src/extensions/host/host.js";
import type { Result } from "./figures.js";
import { echoHost } from "./fixture-copies.js";
import { type BenchContext, compareAll, ratePerSecond, timeEach, timeOnce } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RAW_ECHO = join(ROOT, "bench", "fixtures", "raw-echo.mjs");

/** Round trips per block, and calls per throughput block. */
export const ROUND_TRIPS = 1_000;
export const PIPELINED = 20_000;

/** A raw pipe to a child that echoes lines, carrying a line the size of the host's request frame. */
export function rawPipe() {
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
	const roundTrip = () =>
		new Promise<void>((resolve) => {
			waiting.push(resolve);
			child.stdin.write(line);
		});
	return {
		roundTrip,
		/** A block of sequential round trips, µs each. */
		block: () => timeEach(roundTrip, ROUND_TRIPS, "µs"),
		close: () => child.kill(),
	};
}

/** Load `count` extensions and shut them down; the load's time in ms. */
async function loadOnce(count: number): Promise<number> {
	let host: ExtensionHost | undefined;
	const ms = await timeOnce(async () => {
		host = await echoHost("process", count);
	});
	await host?.shutdown("bench");
	return ms;
}

const bareSpawn = () =>
	timeOnce(
		() =>
			new Promise<void>((resolve) => {
				spawn(process.execPath, ["-e", "0"], { stdio: "ignore" }).on("exit", () => resolve());
			}),
	);

export async function benchProcess(ctx: BenchContext): Promise<Result[]> {
	const raw = rawPipe();
	const host = await echoHost("process", 1);
	const pair = await echoHost("process", 2);
	const args = { text: "hi" };
	const call = () => host.invokeTool("echo", "c", args);
	// Calls that alternate between two extensions, as a hook fanned out to several does.
	let turn = 0;
	const alternate = () => pair.invokeTool(turn++ % 2 === 0 ? "echo" : "echo_1", "c", args);
	try {
		return await compareAll(ctx, [
			{
				id: "process.roundtrip",
				title: "tool round trip, process extension",
				unit: "µs",
				run: () => timeEach(call, ROUND_TRIPS, "µs"),
				baseline: { id: "pipe.roundtrip", title: "raw JSONL pipe echo", run: raw.block },
			},
			{
				id: "process.throughput",
				title: `pipelined tool calls, process extension (${PIPELINED.toLocaleString("en")} per block)`,
				unit: "/s",
				run: () => ratePerSecond(call, PIPELINED),
				baseline: {
					id: "pipe.throughput",
					title: "raw JSONL pipe echo",
					run: () => ratePerSecond(raw.roundTrip, PIPELINED),
				},
			},
			{
				id: "process.alternating.2",
				title: "tool calls alternating between two process extensions",
				unit: "µs",
				run: () => timeEach(alternate, ROUND_TRIPS, "µs"),
				baseline: { title: "tool round trip, one process extension", run: () => timeEach(call, ROUND_TRIPS, "µs") },
			},
			{
				id: "process.load.1",
				title: "load 1 process extension (spawn → ready)",
				unit: "ms",
				run: () => loadOnce(1),
				baseline: { title: "spawn node -e 0", run: bareSpawn },
			},
			{
				id: "process.load.10",
				title: "load 10 process extensions (spawn → ready)",
				unit: "ms",
				run: () => loadOnce(10),
				baseline: { title: "spawn node -e 0", run: bareSpawn },
			},
		]);
	} finally {
		raw.close();
		await Promise.all([host.shutdown("bench"), pair.shutdown("bench")]);
	}
}
