/**
 * Which process a pid is, not only whether one runs: pids are reused, so a lease naming a pid that runs now may
 * name an unrelated process (or one written there by hand). On Linux a process is identified by its pid with its
 * start time (`/proc/<pid>/stat`, field 22, clock ticks since boot) and the boot it started in.
 */
import { readFileSync } from "node:fs";

function read(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

/** `<boot id>:<start ticks>` of `pid`, or undefined where /proc cannot tell (not Linux, or the pid is gone). */
export function processStart(pid: number): string | undefined {
	if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
	const stat = read(`/proc/${pid}/stat`);
	const boot = read("/proc/sys/kernel/random/boot_id")?.trim();
	if (!stat || !boot) return undefined;
	// The command name (field 2) is in parentheses and may hold spaces or parentheses itself: count from after it.
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	const ticks = fields[19];
	return ticks && /^\d+$/.test(ticks) ? `${boot}:${ticks}` : undefined;
}

/** The command line of `pid`, its arguments joined by spaces, or undefined where /proc cannot tell. */
export function commandLine(pid: number): string | undefined {
	if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
	return read(`/proc/${pid}/cmdline`)?.split("\0").join(" ").trim();
}
