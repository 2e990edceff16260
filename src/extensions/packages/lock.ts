/**
 * One lock for every package operation (install, update, remove, a run's reconciliation), as rpi's
 * `.package-operation.lock`: two pier processes never clone over each other's checkout. It holds the owner's pid,
 * so a crashed pier's lock is taken over at once; any lock older than the stale limit is too.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { withDirLock } from "../dir-lock.js";

const STALE_MS = 10 * 60_000;

export async function withPackageLock<T>(agentDir: string, fn: () => Promise<T>, waitMs = 60_000): Promise<T> {
	const lock = join(agentDir, ".pier-packages.lock");
	mkdirSync(agentDir, { recursive: true });
	return withDirLock(
		lock,
		{
			waitMs,
			retryMs: 100,
			staleMs: STALE_MS,
			ownerPid: true,
			busy: () =>
				new Error(`another pier is changing packages (${lock} is held); try again, or remove it if no pier runs`),
		},
		fn,
	);
}
