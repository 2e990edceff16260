/**
 * Finding 11 of issue 27: a deleted session was restored over whatever file had been written at its path after
 * the delete (a rename replaces its target), and that file was lost.
 * Guarantee: restore never replaces a file. The session goes back to its own path when it is free, and beside the
 * newcomer under a new name (keeping pi's `_<id>.jsonl` ending) when it is not; both survive, and the restored
 * session is listed and opens.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { placeBack, restoreNames } from "../../src/chamber/place-back.js";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

type Summary = { id: string };

describe("hostile restore: a file written at a deleted session's path survives the restore", () => {
	const dir = tempDir("pier-hostile-restore-");
	const agentDir = join(dir.path, "agent");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		({ serve, api } = await servedChamber(["--no-examples"], {
			agentDir,
			cwd: dir.path,
			stateDir: join(dir.path, "state"),
		}));
	});

	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	/** A session pi has written to disk (it writes the file with the first answer), and that file. */
	const writtenSession = async () => {
		const { id, stream } = await api.newSession();
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "the answer");
		stream.close();
		const sessions = join(agentDir, "sessions");
		const name = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(`_${id}.jsonl`));
		assert.ok(name, "pi wrote the session file");
		return { id, file: join(sessions, name) };
	};

	test("delete, write a new file at the session's path, restore: both contents survive", async () => {
		const { id, file } = await writtenSession();
		const original = readFileSync(file, "utf8");
		const deleted = await api.call<{ undoUntil?: number }>("DELETE", `/api/pi/sessions/${id}`);
		assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
		assert.equal(typeof deleted.body.undoUntil, "number");
		assert.equal(existsSync(file), false, "the file went to the trash");

		const newcomer = "written after the delete: must not be lost\n";
		writeFileSync(file, newcomer);
		const restored = await api.call<{ session: Summary }>("POST", `/api/pi/sessions/${id}/restore`, {});
		assert.equal(restored.status, 200, JSON.stringify(restored.body));
		assert.equal(restored.body.session.id, id);

		assert.equal(readFileSync(file, "utf8"), newcomer, "the newcomer at the old path is untouched");
		const beside = join(dirname(file), basename(file).replace(`_${id}.jsonl`, `-restored-1_${id}.jsonl`));
		assert.equal(readFileSync(beside, "utf8"), original, "the session came back beside it, byte for byte");

		const list = await api.call<{ sessions: Summary[] }>("GET", "/api/pi/sessions");
		assert.ok(
			list.body.sessions.some((s) => s.id === id),
			"the restored session is listed",
		);
		const view = await api.call<{ rows: { kind: string }[] }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(view.status, 200, JSON.stringify(view.body));
		assert.ok(
			view.body.rows.some((r) => r.kind === "assistant"),
			"and it opens with its history",
		);
	});

	test("a restore with its own path free goes back to that path", async () => {
		const { id, file } = await writtenSession();
		const original = readFileSync(file, "utf8");
		assert.equal((await api.call("DELETE", `/api/pi/sessions/${id}`)).status, 200);
		const restored = await api.call("POST", `/api/pi/sessions/${id}/restore`, {});
		assert.equal(restored.status, 200, JSON.stringify(restored.body));
		assert.equal(readFileSync(file, "utf8"), original);
		assert.deepEqual(
			readdirSync(dirname(file)).filter((n) => n.includes("-restored-") && n.endsWith(`_${id}.jsonl`)),
			[],
		);
	});

	test("every name taken, one past the bound: refused with what to do, the held file kept", () => {
		const here = join(dir.path, "names");
		mkdirSync(here);
		const held = join(here, "held.jsonl");
		writeFileSync(held, "the deleted session");
		const path = join(here, "1700000000000_abc.jsonl");
		const names = restoreNames(path, "abc");
		assert.equal(names.length, 100);
		for (const name of names) writeFileSync(name, "someone else's");
		assert.throws(() => placeBack(held, path, "abc"), /are taken; move some of them away and restore again/);
		assert.equal(readFileSync(held, "utf8"), "the deleted session", "nothing was lost");
		for (const name of names) assert.equal(readFileSync(name, "utf8"), "someone else's");
		// Only the last name free: the file lands there.
		const free = join(here, "free");
		mkdirSync(free);
		const target = join(free, "1700000000000_abc.jsonl");
		const targets = restoreNames(target, "abc");
		for (const name of targets.slice(0, -1)) writeFileSync(name, "taken");
		assert.equal(placeBack(held, target, "abc"), targets.at(-1));
		assert.equal(readFileSync(targets.at(-1)!, "utf8"), "the deleted session");
		assert.equal(existsSync(held), false);
	});
});
