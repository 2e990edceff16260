/**
 * CPU time per call, on both sides of a wire: what this process and the child answering it spent, all threads,
 * per round trip. Read from Linux's per-thread scheduler counts (`/proc/<pid>/task/<tid>/schedstat`, ns), the
 * same way for the host and the child, so a pipe's child and an extension's child are counted alike.
 */
import { readdirSync, readFileSync } from "node:fs";

/** CPU µs `pid` has run so far, over its live threads. */
export function cpuMicros(pid: number): number {
	let ns = 0;
	let read = 0;
	for (const task of readdirSync(`/proc/${pid}/task`)) {
		try {
			ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
			read++;
		} catch {
			// the thread ended between the listing and the read
		}
	}
	if (read === 0)
		throw new Error(`no /proc/${pid}/task/*/schedstat to read: the CPU figures need Linux with schedstat`);
	return ns / 1_000;
}

/** One block: `count` sequential calls; the CPU µs per call, this process plus `childPid`. */
export async function cpuPerCall(call: () => Promise<unknown>, count: number, childPid: number): Promise<number> {
	const before = cpuMicros(process.pid) + cpuMicros(childPid);
	for (let i = 0; i < count; i++) await call();
	return (cpuMicros(process.pid) + cpuMicros(childPid) - before) / count;
}
