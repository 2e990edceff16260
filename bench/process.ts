/**
 * Process extensions: tool round trip, CPU per call and pipelined throughput beside a JSONL echo child (the
 * protocol's floor: JSON frames encoded and parsed on both sides, nothing else), calls alternating between two
 * extensions beside calls to one, and load time (spawn → ready) for 1 and 10 extensions beside a bare spawn.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExtensionHost } from "../src/extensions/host/host.js";
import type { ProcessChannel } from "../src/extensions/runtimes/process/channel.js";
import { cpuPerCall } from "./proc-cpu.js";
import type { Result } from "./figures.js";
import { echoHost } from "./fixture-copies.js";
import { type BenchContext, compareAll, type FigureSpec, ratePerSecond, timeEach, timeOnce } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const JSONL_ECHO = join(ROOT, "bench", "fixtures", "jsonl-echo.mjs");

/** Round trips per block, and calls per throughput block. */
export const ROUND_TRIPS = 1_000;
export const PIPELINED = 20_000;

/**
 * A pipe to bench/fixtures/jsonl-echo.mjs: each call encodes a request frame like the host's tool call, the child
 * parses it and encodes a response, and the answer is parsed and matched to its call by id, all event-driven.
 */
export function jsonlPipe() {
	const child = spawn(process.execPath, [JSONL_ECHO], { stdio: ["pipe", "pipe", "inherit"] });
	const waiting = new Map<string, (value: unknown) => void>();
	let pending = "";
	let next = 0;
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		pending += chunk;
		for (let lf = pending.indexOf("\n"); lf >= 0; lf = pending.indexOf("\n")) {
			const frame = JSON.parse(pending.slice(0, lf)) as { id: string; result: { value: unknown } };
			pending = pending.slice(lf + 1);
			waiting.get(frame.id)?.(frame.result.value);
			waiting.delete(frame.id);
		}
	});
	const invocation = { kind: "tool", name: "echo", callId: "c", arguments: { text: "hi" } };
	const roundTrip = () =>
		new Promise<unknown>((resolve) => {
			const id = `h-${next++}`;
			waiting.set(id, resolve);
			child.stdin.write(
				`${JSON.stringify({ type: "request", id, generation: 1, request: { kind: "invoke", invocation } })}\n`,
			);
		});
	return {
		roundTrip,
		pid: child.pid!,
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

/** The bench-echo process extension beside the JSONL echo child, and its tool call. */
export async function echoWire() {
	const pipe = jsonlPipe();
	const host = await echoHost("process", 1);
	const args = { text: "hi" };
	return {
		pipe,
		host,
		call: () => host.invokeTool("echo", "c", args),
		childPid: (host.instances[0]!.channel as ProcessChannel).pid!,
		close: async () => {
			pipe.close();
			await host.shutdown("bench");
		},
	};
}

/** The round trip and its CPU per call beside the echo's, with `suffix` on every id. */
export function roundTripFigures(wire: Awaited<ReturnType<typeof echoWire>>, suffix = "", how = ""): FigureSpec[] {
	const { pipe, call, childPid } = wire;
	return [
		{
			id: `process.roundtrip${suffix}`,
			title: `tool round trip, process extension${how}`,
			unit: "µs",
			run: () => timeEach(call, ROUND_TRIPS, "µs"),
			baseline: { id: `pipe.jsonl-echo${suffix}`, title: `JSONL echo child round trip${how}`, run: pipe.block },
		},
		{
			id: `process.cpu-per-call${suffix}`,
			title: `CPU per tool round trip, host + process extension${how}`,
			unit: "µs",
			run: () => cpuPerCall(call, ROUND_TRIPS, childPid),
			baseline: {
				id: `pipe.jsonl-echo.cpu${suffix}`,
				title: `CPU per round trip, host + JSONL echo child${how}`,
				run: () => cpuPerCall(pipe.roundTrip, ROUND_TRIPS, pipe.pid),
			},
		},
	];
}

export async function benchProcess(ctx: BenchContext): Promise<Result[]> {
	const wire = await echoWire();
	const pair = await echoHost("process", 2);
	const { pipe, call } = wire;
	const args = { text: "hi" };
	// Calls that alternate between two extensions, as a hook fanned out to several does.
	let turn = 0;
	const alternate = () => pair.invokeTool(turn++ % 2 === 0 ? "echo" : "echo_1", "c", args);
	try {
		return await compareAll(ctx, [
			...roundTripFigures(wire),
			{
				id: "process.throughput",
				title: `pipelined tool calls, process extension (${PIPELINED.toLocaleString("en")} per block)`,
				unit: "/s",
				run: () => ratePerSecond(call, PIPELINED),
				baseline: { title: "JSONL echo child", run: () => ratePerSecond(pipe.roundTrip, PIPELINED) },
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
		await Promise.all([wire.close(), pair.shutdown("bench")]);
	}
}
