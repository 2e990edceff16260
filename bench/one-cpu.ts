/**
 * The round trips again with the bench and every extension on one CPU (`taskset -c 0`; children inherit the
 * affinity), run in a child process (one-cpu-child.ts). A pipe write, or a worker's message, then wakes its
 * reader on the writer's own CPU, so a round trip is the two sides' work and the context switches between them.
 * On two CPUs of a VM each round trip is also two cross-CPU wake-ups, whose cost depends on whatever else keeps a
 * core awake: there the ratio to a baseline moves from run to run with the same code.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Result } from "./figures.js";
import type { BenchContext } from "./harness.js";

const CHILD = fileURLToPath(new URL("./one-cpu-child.js", import.meta.url));

/** Every id the child measures, figures and baselines. */
export const ONE_CPU_IDS = [
	"process.roundtrip.one-cpu",
	"pipe.jsonl-echo.one-cpu",
	"process.cpu-per-call.one-cpu",
	"pipe.jsonl-echo.cpu.one-cpu",
	"quickjs.roundtrip.one-cpu",
	"native.roundtrip.one-cpu",
];

export async function benchOneCpu(ctx: BenchContext): Promise<Result[]> {
	if (!ONE_CPU_IDS.some((id) => ctx.wants(id))) return [];
	ctx.log("  *.one-cpu, under taskset -c 0");
	const child = spawn("taskset", ["-c", "0", process.execPath, CHILD, String(ctx.pairs)], {
		stdio: ["ignore", "pipe", "inherit"],
	});
	let out = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		out += chunk;
	});
	const [code, error] = await new Promise<[number | null, Error | undefined]>((resolve) => {
		child.once("error", (err) => resolve([null, err]));
		child.once("close", (status) => resolve([status, undefined]));
	});
	if (error) throw new Error(`the one-CPU figures need util-linux's taskset: ${error.message}`);
	if (code !== 0) throw new Error(`taskset -c 0 node ${CHILD} exited ${code} (its error is above)`);
	return JSON.parse(out) as Result[];
}
