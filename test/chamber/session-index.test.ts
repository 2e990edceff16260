/**
 * The chamber's session listing by project directory: the same answer as pi's `listAll`, re-read only where
 * a directory's files changed (a session appended, a file added or removed).
 */
import assert from "node:assert/strict";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { SessionIndex } from "../../src/chamber/session-index.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-session-index-");
after(() => dir[Symbol.dispose]());

test("the index answers as pi's listAll, and re-lists only the directory that changed", async () => {
	const previous = process.env.PI_CODING_AGENT_DIR;
	process.env.PI_CODING_AGENT_DIR = dir.path;
	const listed: string[] = [];
	const original = SessionManager.list;
	SessionManager.list = async (cwd, sessionDir, onProgress) => {
		listed.push(sessionDir ?? cwd);
		return original.call(SessionManager, cwd, sessionDir, onProgress);
	};
	try {
		for (const project of ["alpha", "beta"]) {
			const cwd = join(dir.path, project);
			await import("node:fs").then((fs) => fs.mkdirSync(cwd, { recursive: true }));
			const run = await runPier(["run", "--cwd", cwd, `hello ${project}`], { agentDir: dir.path });
			assert.equal(run.code, 0, run.stderr);
		}
		const index = new SessionIndex();
		const ids = (list: { id: string }[]) => list.map((s) => s.id);
		assert.deepEqual(ids(await index.listAll()), ids(await SessionManager.listAll()));
		assert.equal(listed.length, 2, "each project directory listed once");

		listed.length = 0;
		await index.listAll();
		assert.equal(listed.length, 0, "nothing changed: nothing read");

		const alpha = (await SessionManager.listAll()).find((s) => s.cwd.endsWith("alpha"))!;
		const again = await runPier(["run", "--cwd", join(dir.path, "alpha"), "--session", alpha.path, "more"], {
			agentDir: dir.path,
		});
		assert.equal(again.code, 0, again.stderr);
		listed.length = 0;
		const afterAppend = await index.listAll();
		assert.equal(listed.length, 1, "only the changed project directory is read again");
		assert.equal(afterAppend.find((s) => s.id === alpha.id)?.messageCount, alpha.messageCount + 2);
		assert.deepEqual(ids(afterAppend), ids(await SessionManager.listAll()), "newest first, as pi");

		rmSync(alpha.path);
		assert.ok(!ids(await index.listAll()).includes(alpha.id), "a removed file leaves the list");
		assert.equal(readdirSync(join(dir.path, "sessions")).length, 2);
	} finally {
		SessionManager.list = original;
		if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = previous;
	}
});
