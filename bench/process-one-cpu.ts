/**
 * Run by process.ts under `taskset -c 0`: the process round trip and its CPU per call beside the echo's, with
 * the bench, the extension and the echo child on one CPU (children inherit the affinity). A pipe write then
 * wakes its reader on the writer's own CPU, so each figure is the two sides' work and two context switches;
 * across two CPUs of a VM it is dominated by wake-ups whose cost depends on whatever else keeps a core awake.
 * Prints its results as one JSON array.
 */
import type { BenchContext } from "./harness.js";
import { compareAll } from "./harness.js";
import { echoWire, roundTripFigures } from "./process.js";

const ctx: BenchContext = {
	pairs: Number(process.argv[2]),
	wants: () => true,
	log: (message) => void process.stderr.write(`${message}\n`),
};
const wire = await echoWire();
try {
	const results = await compareAll(ctx, roundTripFigures(wire, ".one-cpu", " (one CPU)"));
	process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
	await wire.close();
}
process.exit(0);
