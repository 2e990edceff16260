/**
 * CPU time from Linux's per-thread scheduler counts (`/proc/<pid>/task/<tid>/schedstat`, ns): of one process (all
 * its threads), of a process tree, and per call on both sides of a wire, counted alike for the host and any child.
 * A thread or process that ends between two readings takes its time with it.
 */
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

const read = (path: string): string | undefined => {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined; // it ended meanwhile
	}
};

/** pid → parent pid of every process now. */
function parents(): Map<number, number> {
	const table = new Map<number, number>();
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		const stat = read(`/proc/${name}/stat`);
		// The command name may hold spaces and parentheses: the fields start after its last ")".
		if (stat) table.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
	}
	return table;
}

/** ns on a CPU of one process, the sum over its threads; undefined when none could be read (gone, or no schedstat). */
function processNs(pid: number): number | undefined {
	let tasks: string[];
	try {
		tasks = readdirSync(`/proc/${pid}/task`);
	} catch {
		return undefined;
	}
	let ns: number | undefined;
	for (const tid of tasks) {
		const stat = read(`/proc/${pid}/task/${tid}/schedstat`);
		if (stat !== undefined) ns = (ns ?? 0) + Number(stat.split(" ")[0]);
	}
	return ns;
}

/** CPU µs `pid` has run so far, over its live threads. */
export function cpuMicros(pid: number): number {
	const ns = processNs(pid);
	if (ns === undefined) {
		throw new Error(`no /proc/${pid}/task/*/schedstat to read: the CPU figures need Linux with schedstat`);
	}
	return ns / 1_000;
}

/** One block: `count` sequential calls; the CPU µs per call, this process plus `childPid`. */
export async function cpuPerCall(call: () => Promise<unknown>, count: number, childPid: number): Promise<number> {
	const before = cpuMicros(process.pid) + cpuMicros(childPid);
	for (let i = 0; i < count; i++) await call();
	return (cpuMicros(process.pid) + cpuMicros(childPid) - before) / count;
}

/** ns on a CPU of `root` and of each process under it, by pid. */
export function treeNs(root: number): Map<number, number> {
	const table = parents();
	const ns = new Map<number, number>();
	const queue = [root];
	while (queue.length > 0) {
		const pid = queue.pop()!;
		ns.set(pid, processNs(pid) ?? 0);
		for (const [child, parent] of table) if (parent === pid) queue.push(child);
	}
	return ns;
}

/** % of one core used by `pid`'s process tree over a window of `ms`, and by the process `pid` itself. */
export async function cpuShare(pid: number, ms: number): Promise<{ tree: number; own: number }> {
	const before = treeNs(pid);
	const start = process.hrtime.bigint();
	await sleep(ms);
	const after = treeNs(pid);
	const wall = Number(process.hrtime.bigint() - start);
	const share = (ns: number) => (ns / wall) * 100;
	let ns = 0;
	for (const [child, end] of after) ns += end - (before.get(child) ?? 0);
	return { tree: share(ns), own: share((after.get(pid) ?? 0) - (before.get(pid) ?? 0)) };
}
