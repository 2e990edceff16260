/**
 * Run by quickjs.ts in a fresh process per sample (so one sample's freed-but-kept memory does not inflate the
 * next): the resident memory `count` idle QuickJS extensions add, per extension, in MiB, printed as JSON.
 *
 * One extension is loaded and shut down first, so the shared compiled WebAssembly module and pier's own code
 * are in the "before" figure (they are paid once per process, not per extension).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { echoHost } from "./fixture-copies.js";

const count = Number(process.argv[2] ?? 50);
const gc = (globalThis as { gc?: () => void }).gc;
const settle = async () => {
	gc?.();
	await sleep(200);
	gc?.();
};

const warm = await echoHost("quickjs", 1);
await warm.shutdown("bench");
await settle();
const before = process.memoryUsage().rss;
const host = await echoHost("quickjs", count);
await settle();
const after = process.memoryUsage().rss;
process.stdout.write(`${JSON.stringify({ count, perExtensionMiB: (after - before) / count / 2 ** 20 })}\n`);
await host.shutdown("bench");
process.exit(0);
