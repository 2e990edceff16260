/**
 * One writer per session file. pi appends to a session file from whichever process has it open; two
 * writers (the chamber and `pier run --session`, or two daemons) leave two interleaved branches in pi's
 * tree. pier processes take a lease next to the file (`<file>.lease`, created exclusively) before they
 * write, and refuse a file whose lease a live process holds, naming it. pi's own CLI knows nothing of
 * leases; the chamber notices its appends instead (live-session.ts).
 *
 * A lease is stale when its holder is gone: on this host, its pid no longer runs, or runs another process
 * (the lease records its holder's start time, and a pid now started at another time was reused; a lease without
 * one counts only if the pid's command line is pier's); elsewhere (a shared home directory), its heartbeat (the
 * lease file's mtime, touched every HEARTBEAT_MS) is older than STALE_MS.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { commandLine, processStart } from "./process-start.js";

export const HEARTBEAT_MS = 30_000;
export const STALE_MS = 120_000;

export interface LeaseHolder {
	pid: number;
	host: string;
	/** What holds it: "pier serve", "pier run", … */
	holder: string;
	since: string;
	/** The holder's start (process-start.ts), where the host can tell: with the pid, which process it is. */
	started?: string;
}

const leaseFile = (file: string) => `${file}.lease`;

export class SessionInUseError extends Error {
	override name = "SessionInUseError";
	constructor(
		readonly file: string,
		readonly by: LeaseHolder,
	) {
		super(
			`session ${file} is in use by ${by.holder} (pid ${by.pid} on ${by.host}, since ${by.since}); ` +
				`close it there first, or open a copy with --fork. If no pier process holds it any more, ` +
				`delete ${leaseFile(file)} to break the lease`,
		);
	}
}

export interface SessionLease {
	readonly file: string;
	release(): void;
}

function readHolder(path: string): LeaseHolder | undefined {
	try {
		const holder = JSON.parse(readFileSync(path, "utf8")) as Partial<LeaseHolder>;
		if (typeof holder.pid !== "number" || typeof holder.host !== "string") return undefined;
		return {
			pid: holder.pid,
			host: holder.host,
			holder: String(holder.holder ?? "a pier process"),
			since: String(holder.since ?? "?"),
			...(typeof holder.started === "string" ? { started: holder.started } : {}),
		};
	} catch {
		return undefined;
	}
}

function alive(holder: LeaseHolder, path: string): boolean {
	if (holder.host === hostname()) {
		if (holder.pid === process.pid) return true;
		try {
			process.kill(holder.pid, 0);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
		}
		return isHolder(holder);
	}
	try {
		return Date.now() - statSync(path).mtimeMs < STALE_MS;
	} catch {
		return false;
	}
}

/** Whether the process running under the holder's pid is the holder (where this host cannot tell: yes). */
function isHolder(holder: LeaseHolder): boolean {
	const started = processStart(holder.pid);
	if (started === undefined) return true;
	if (holder.started !== undefined) return holder.started === started;
	// A lease with no start time (an older pier, or written by hand): only a pier process holds it.
	const command = commandLine(holder.pid);
	return command === undefined || /pier/i.test(command);
}

/** Who holds the file's lease now, when a live process other than this one does (a look, never a take-over). */
export function leaseHolderOf(file: string): LeaseHolder | undefined {
	const path = leaseFile(file);
	const holder = readHolder(path);
	if (!holder || (holder.pid === process.pid && holder.host === hostname())) return undefined;
	return alive(holder, path) ? holder : undefined;
}

/**
 * Leases still held when the process exits. One exit listener for all of them: a daemon holds a lease per
 * live session, and a listener each made Node warn of a leak past ten sessions.
 */
const atExit = new Set<() => void>();
let listening = false;
function releaseAtExit(release: () => void): void {
	if (!listening) {
		listening = true;
		process.once("exit", () => {
			for (const held of [...atExit]) held();
		});
	}
	atExit.add(release);
}

/**
 * Takes the lease on `file` for this process, or throws SessionInUseError naming the live holder. A
 * stale lease (dead holder, unreadable content) is taken over. Re-entrant within one process: a second
 * lease on a file this process already holds is a no-op lease.
 */
export function acquireSessionLease(file: string, holder: string): SessionLease {
	const path = leaseFile(file);
	const started = processStart(process.pid);
	const me: LeaseHolder = {
		pid: process.pid,
		host: hostname(),
		holder,
		since: new Date().toISOString(),
		...(started ? { started } : {}),
	};
	for (let attempt = 0; attempt < 3; attempt++) {
		let fd: number;
		try {
			fd = openSync(path, "wx", 0o600);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			const current = readHolder(path);
			if (current && current.pid === process.pid && current.host === me.host) return { file, release: () => {} };
			if (current && alive(current, path)) throw new SessionInUseError(file, current);
			// Stale: remove and race again for the exclusive create (another taker may win; then it is theirs).
			rmSync(path, { force: true });
			continue;
		}
		writeSync(fd, JSON.stringify(me));
		closeSync(fd);
		const heartbeat = setInterval(() => {
			const now = new Date();
			try {
				utimesSync(path, now, now);
			} catch {
				// The lease file went away (deleted session): nothing to keep alive.
			}
		}, HEARTBEAT_MS).unref();
		let released = false;
		const release = () => {
			if (released) return;
			released = true;
			clearInterval(heartbeat);
			atExit.delete(release);
			// Only our own lease: never delete one another process took over after we were judged stale.
			const current = readHolder(path);
			if (current?.pid === me.pid && current.host === me.host && current.since === me.since)
				rmSync(path, { force: true });
		};
		// A command that ends without disposing its runtime (print mode exits) still leaves no lease behind.
		releaseAtExit(release);
		return { file, release };
	}
	const current = readHolder(path);
	throw new SessionInUseError(file, current ?? { ...me, pid: -1, holder: "another pier process" });
}
