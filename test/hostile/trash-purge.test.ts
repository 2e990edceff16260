/**
 * Finding 14 of issue 27: a deleted session's file stayed in `<stateDir>/trash/` after its undo window, until the
 * next delete or restore happened to purge it (and forever when none came).
 * Guarantee: the daemon deletes a shelved file when its window ends (one unref'd timer for the next expiry) and
 * at start for whatever expired while it was down. `$PIER_SESSION_UNDO_MS` sets the window; a bad value is refused.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { until } from "../chamber-web/browser-helpers.js";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

describe("hostile trash: a deleted session is gone after its undo window", () => {
	const dir = tempDir("pier-hostile-trash-");
	const agentDir = join(dir.path, "agent");
	const stateDir = join(dir.path, "state");
	const trash = join(stateDir, "trash");
	let serve: Serve | undefined;

	after(async () => {
		await stop();
		dir[Symbol.dispose]();
	});

	const stop = async () => {
		await serve?.stop();
		serve = undefined;
	};
	/** A daemon with this undo window (the one before it stopped first, also when a test failed half-way). */
	const start = async (undoMs: number) => {
		await stop();
		const served = await servedChamber(["--no-examples"], {
			agentDir,
			cwd: dir.path,
			stateDir,
			env: { PIER_SESSION_UNDO_MS: String(undoMs) },
		});
		serve = served.serve;
		return served.api;
	};
	/** Files waiting in the trash (not its index). */
	const shelved = () => (existsSync(trash) ? readdirSync(trash).filter((n) => n !== "index.json") : []);
	/** Deletes a session pi has written to disk; returns until when it can come back. */
	const deleteWritten = async (api: ApiClient) => {
		const { id, stream } = await api.newSession();
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
		await stream.waitFor((e) => e.event === "agent.end", "the first answer");
		stream.close();
		const deleted = await api.call<{ undoUntil?: number }>("DELETE", `/api/pi/sessions/${id}`);
		assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
		assert.equal(typeof deleted.body.undoUntil, "number", "the session had a file to shelve");
		return { id, undoUntil: deleted.body.undoUntil! };
	};

	test("with the daemon running, the shelved file is deleted once its window ends, with nothing else happening", async () => {
		const api = await start(3_000);
		const { id } = await deleteWritten(api);
		assert.equal(shelved().length, 1, "the file waits in the trash");
		await until(() => shelved().length === 0, "the shelved file to be deleted", 15_000);
		const restore = await api.call("POST", `/api/pi/sessions/${id}/restore`, {});
		assert.equal(restore.status, 410, "past its window the session is gone");
	});

	test("a window that ended while the daemon was down is purged when it starts", async () => {
		const api = await start(8_000);
		const { undoUntil } = await deleteWritten(api);
		await stop();
		assert.equal(shelved().length, 1, "the file outlived the daemon, inside its window");
		// Past the window with no daemon running: nothing could delete it.
		await sleep(Math.max(0, undoUntil - Date.now()) + 200);
		assert.equal(shelved().length, 1);
		await start(8_000);
		assert.deepEqual(shelved(), [], "gone as soon as the daemon is up");
	});

	test("PIER_SESSION_UNDO_MS must be a whole number of milliseconds, at least 1", async () => {
		await stop();
		for (const bad of ["0", "-5", "1.5", "soon"]) {
			const result = await runPier(["serve", "--port", "0", "--state-dir", stateDir], {
				agentDir,
				cwd: dir.path,
				env: { PIER_SESSION_UNDO_MS: bad },
			});
			assert.notEqual(result.code, 0, bad);
			assert.match(result.stderr, /PIER_SESSION_UNDO_MS must be a whole number of milliseconds, at least 1/, bad);
		}
	});
});
