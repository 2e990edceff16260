/**
 * Every process a terminal started. node-pty makes the shell a session leader (setsid), so its jobs, background
 * ones included, share its session id until they make their own: on Linux they are found in /proc by that id. A
 * closed terminal signals all of them, not only the shell, so nothing it started outlives it (`nohup cmd &`
 * included: SIGKILL follows the grace time). Elsewhere the shell's process group stands in.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

const HAS_PROC = existsSync("/proc/self/stat");

/**
 * The live pids whose session id is `sid` (the shell's pid), the shell included; empty where /proc is missing. A
 * zombie is left out: it runs nothing, and one whose parent died waits for an init that may never reap it.
 */
export function sessionMembers(sid: number): number[] {
	let names: string[];
	try {
		names = readdirSync("/proc");
	} catch {
		return [];
	}
	const members: number[] = [];
	for (const name of names) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, "utf8");
			// "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses, so read after the last ")".
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			if (Number(fields[3]) === sid && fields[0] !== "Z") members.push(Number(name));
		} catch {
			// Gone between the listing and the read.
		}
	}
	return members;
}

/** Sends `signal` to every process of the shell's session (its group where /proc cannot tell); true if any got it. */
export function signalSession(sid: number, signal: NodeJS.Signals): boolean {
	const members = sessionMembers(sid);
	let sent = false;
	for (const pid of members.length > 0 ? members : [-sid, sid]) {
		try {
			process.kill(pid, signal);
			sent = true;
		} catch {
			// Already gone.
		}
	}
	return sent;
}

/** Whether a process runs (a zombie counts as gone: it only waits for its parent to read its status). */
export function isRunning(pid: number): boolean {
	if (!HAS_PROC) {
		try {
			process.kill(pid, 0);
			return true;
		} catch {
			return false;
		}
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z";
	} catch {
		return false;
	}
}
