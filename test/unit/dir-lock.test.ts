import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type DirLockOptions, withDirLock, withDirLockSync } from "../../src/extensions/dir-lock.js";

const options = (extra: Partial<DirLockOptions> = {}): DirLockOptions => ({
	waitMs: 150,
	retryMs: 10,
	staleMs: 10_000,
	busy: () => new Error("busy: held elsewhere"),
	...extra,
});

const fresh = () => join(mkdtempSync(join(tmpdir(), "pier-lock-")), "x.lock");

test("a lock is held while the function runs and released after it, even when it throws", async () => {
	const lock = fresh();
	assert.equal(
		withDirLockSync(lock, options(), () => existsSync(lock)),
		true,
	);
	assert.equal(existsSync(lock), false);
	await assert.rejects(
		withDirLock(lock, options(), () => {
			throw new Error("inner");
		}),
		/inner/,
	);
	assert.equal(existsSync(lock), false);
});

test("a live holder makes both loops give up with the caller's error; the holder's lock stays", async () => {
	const lock = fresh();
	mkdirSync(lock);
	assert.throws(() => withDirLockSync(lock, options(), () => "never"), /busy: held elsewhere/);
	await assert.rejects(
		withDirLock(lock, options(), async () => "never"),
		/busy: held elsewhere/,
	);
	assert.equal(existsSync(lock), true);
});

test("a lock past its stale age is taken over", () => {
	const lock = fresh();
	mkdirSync(lock);
	const old = new Date(Date.now() - 60_000);
	utimesSync(lock, old, old);
	assert.equal(
		withDirLockSync(lock, options(), () => "ran"),
		"ran",
	);
});

test("with owner pids, a lock whose owner has exited is taken over at once; a live owner's is not", async () => {
	const lock = fresh();
	mkdirSync(lock);
	const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
	writeFileSync(join(lock, "pid"), String(dead));
	assert.equal(await withDirLock(lock, options({ ownerPid: true }), async () => "ran"), "ran");
	mkdirSync(lock);
	writeFileSync(join(lock, "pid"), String(process.pid));
	await assert.rejects(
		withDirLock(lock, options({ ownerPid: true }), async () => "never"),
		/busy/,
	);
});
