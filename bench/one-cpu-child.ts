/**
 * Run by one-cpu.ts under `taskset -c 0`: the process round trip and its CPU per call beside the JSONL echo's,
 * and the QuickJS and native round trips beside the process one, each id with `.one-cpu`. Prints the results as
 * one JSON array.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { echoHost } from "./fixture-copies.js";
import { type BenchContext, compareAll, timeEach } from "./harness.js";
import { loaded, nativePackage } from "./native.js";
import { echoWire, ROUND_TRIPS, roundTripFigures } from "./process.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ctx: BenchContext = {
	pairs: Number(process.argv[2]),
	wants: () => true,
	log: (message) => void process.stderr.write(`${message}\n`),
};
const work = mkdtempSync(join(tmpdir(), "pier-bench-one-cpu-"));
const wire = await echoWire();
const qjs = await echoHost("quickjs", 1);
const native = await loaded([
	await nativePackage(work, "native-crash", join(ROOT, "test", "fixtures", "native", "crash")),
]);
const args = { text: "hi" };
const processSide = {
	id: "process.roundtrip.one-cpu",
	title: "process extension tool round trip (one CPU)",
	run: () => timeEach(wire.call, ROUND_TRIPS, "µs"),
};
try {
	const results = await compareAll(ctx, [
		...roundTripFigures(wire, ".one-cpu", " (one CPU)"),
		{
			id: "quickjs.roundtrip.one-cpu",
			title: "QuickJS tool round trip (one CPU)",
			unit: "µs",
			run: () => timeEach(() => qjs.invokeTool("echo", "c", args), ROUND_TRIPS, "µs"),
			baseline: processSide,
		},
		{
			id: "native.roundtrip.one-cpu",
			title: "tool round trip, native plugin (one poll, Done; one CPU)",
			unit: "µs",
			run: () => timeEach(() => native.invokeTool("ok", "c", {}), ROUND_TRIPS, "µs"),
			baseline: processSide,
		},
	]);
	process.stdout.write(`${JSON.stringify(results)}\n`);
} finally {
	await Promise.all([wire.close(), qjs.shutdown("bench"), native.shutdown("bench")]);
	rmSync(work, { recursive: true, force: true });
}
process.exit(0);
