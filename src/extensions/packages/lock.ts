/**
 * One lock for every package operation (install, update, remove, a run's reconciliation), as rpi's
 * `.package-operation.lock`: two pier processes never clone over each other's checkout. A directory made with
 * mkdir (atomic on every filesystem pier runs on) holding the owner's pid; a lock whose owner is gone, or older
 * than the stale limit, is taken over.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const STALE_MS = 10 * 60_000;

function ownerAlive(lock: string): boolean {
	let text: string;
	try {
		text = readFileSync(join(lock, "pid"), "utf8");
	} catch {
		// Just made, its pid not written yet: alive (an abandoned one ages out).
		return true;
	}
	try {
		const pid = Number(text);
		if (!Number.isInteger(pid) || pid <= 0) return false;
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

function stale(lock: string): boolean {
	try {
		return Date.now() - statSync(lock).mtimeMs > STALE_MS || !ownerAlive(lock);
	} catch {
		return false;
	}
}

export async function withPackageLock<T>(agentDir: string, fn: () => Promise<T>, waitMs = 60_000): Promise<T> {
	const lock = join(agentDir, ".pier-packages.lock");
	mkdirSync(agentDir, { recursive: true });
	const deadline = Date.now() + waitMs;
	while (true) {
		try {
			mkdirSync(lock);
			writeFileSync(join(lock, "pid"), String(process.pid));
			break;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
			if (stale(lock)) {
				rmSync(lock, { recursive: true, force: true });
				continue;
			}
			if (Date.now() > deadline)
				throw new Error(`another pier is changing packages (${lock} is held); try again, or remove it if no pier runs`);
			await sleep(100);
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}
