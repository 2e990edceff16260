/**
 * The lock pi's proper-lockfile takes, and so the one every pier store takes: whoever creates the directory with
 * mkdir (atomic on every filesystem pier runs on) holds it. A lock older than `staleMs`, or, when owners write
 * their pid into it, one whose owner is gone, is taken over. One acquisition step, with a blocking loop for
 * callers that must stay synchronous (the trust store is read while pi loads) and an async one for the rest.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export interface DirLockOptions {
	/** How long to wait for a live holder before giving up with `busy()`. */
	waitMs: number;
	retryMs: number;
	staleMs: number;
	/** Write our pid into the lock so a crashed owner's lock is taken over at once (not for pi's own locks). */
	ownerPid?: boolean;
	/** The error when the wait runs out: it names the lock and what the user can do. */
	busy: () => Error;
}

type Attempt = "taken" | "held" | "retry";

function ownerGone(lock: string): boolean {
	let text: string;
	try {
		text = readFileSync(join(lock, "pid"), "utf8");
	} catch {
		// Just made, its pid not written yet (or no pid kept): alive; an abandoned one ages out.
		return false;
	}
	const pid = Number(text);
	if (!Number.isInteger(pid) || pid <= 0) return true;
	try {
		process.kill(pid, 0);
		return false;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code !== "EPERM";
	}
}

function attempt(lock: string, options: DirLockOptions): Attempt {
	try {
		mkdirSync(lock);
		if (options.ownerPid) writeFileSync(join(lock, "pid"), String(process.pid));
		return "taken";
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
	}
	try {
		if (Date.now() - statSync(lock).mtimeMs <= options.staleMs && !(options.ownerPid && ownerGone(lock))) return "held";
		release(lock);
	} catch {
		// released in between
	}
	return "retry";
}

function release(lock: string): void {
	rmSync(lock, { recursive: true, force: true });
}

export function withDirLockSync<T>(lock: string, options: DirLockOptions, fn: () => T): T {
	const deadline = Date.now() + options.waitMs;
	const pause = new Int32Array(new SharedArrayBuffer(4));
	for (let state = attempt(lock, options); state !== "taken"; state = attempt(lock, options)) {
		if (Date.now() >= deadline) throw options.busy();
		if (state === "held") Atomics.wait(pause, 0, 0, options.retryMs);
	}
	try {
		return fn();
	} finally {
		release(lock);
	}
}

export async function withDirLock<T>(lock: string, options: DirLockOptions, fn: () => Promise<T> | T): Promise<T> {
	const deadline = Date.now() + options.waitMs;
	for (let state = attempt(lock, options); state !== "taken"; state = attempt(lock, options)) {
		if (Date.now() >= deadline) throw options.busy();
		if (state === "held") await sleep(options.retryMs);
	}
	try {
		return await fn();
	} finally {
		release(lock);
	}
}
