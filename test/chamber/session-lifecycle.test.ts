/**
 * A session's life seen from the daemon, over real HTTP to a real `pier serve`: looking at a session (its view,
 * its event stream) starts no runtime and no extension process, and the first action starts one on the stream
 * the page already follows; sessions `pier run` makes appear on the daemon stream; search reads every message;
 * a session another pier holds says who holds it and can be copied; the trash lists what can be restored.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { ApiClient, EventReader, type Serve, startServe } from "../helpers/chamber.js";
import { cleanEnv, PIER_BIN, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const PASSWORD = "correct horse battery";
const STEP = 20_000;

describe("session lifecycle", () => {
	const dir = tempDir("pier-lifecycle-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	const extension = join(dir.path, "pid-counter");
	const pids = join(extension, ".pier-pids");
	let serve: Serve;
	let api: ApiClient;
	const spawned = () => (existsSync(pids) ? readdirSync(pids).length : 0);
	/** The GET alone, as the page now sends it: no `POST …/open` first. */
	const follow = (id: string) => new EventReader(new URL(`/api/pi/events?session=${id}`, serve.url), api.headers());
	const sessionsDir = () => join(agentDir, "sessions");
	const sessionFile = (id: string) =>
		readdirSync(sessionsDir(), { recursive: true })
			.map(String)
			.find((f) => f.endsWith(`_${id}.jsonl`));
	const outside = async (...args: string[]) => {
		const run = await runPier(["run", ...args], { agentDir, cwd: project });
		assert.equal(run.code, 0, run.stderr);
	};
	const listedIds = async (query = "") =>
		(
			await api.call<{ sessions: { id: string }[] }>(
				"GET",
				`/api/pi/sessions${query ? `?q=${encodeURIComponent(query)}` : ""}`,
			)
		).body.sessions.map((s) => s.id);

	before(async () => {
		mkdirSync(project, { recursive: true });
		// The counting extension, copied where its pid files are this test's own (its import made absolute).
		const fixture = join(REPO_ROOT, "test/fixtures/chamber/pid-counter");
		mkdirSync(extension);
		copyFileSync(join(fixture, "pi-extension.json"), join(extension, "pi-extension.json"));
		const kit = pathToFileURL(join(REPO_ROOT, "kit/node/index.mjs")).href;
		const main = readFileSync(join(fixture, "main.mjs"), "utf8").replace("../../../../kit/node/index.mjs", kit);
		writeFileSync(join(extension, "main.mjs"), main, { mode: 0o755 });
		// Sessions made before the daemon, by `pier run` (without the counting extension).
		await outside("alpha apples");
		await outside("beta bananas");
		await outside("gamma grapes");
		serve = await startServe(
			["--no-examples", "-e", extension, "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD],
			{ agentDir, cwd: project },
		);
		api = new ApiClient(serve.url);
		assert.equal((await api.login(PASSWORD)).status, 200);
	});

	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("viewing and following sessions spawns no extension process; a prompt starts one, on the same stream", async () => {
		const ids = await listedIds();
		assert.equal(ids.length, 3);
		const streams: EventReader[] = [];
		for (const id of ids) {
			assert.equal((await api.call("GET", `/api/pi/sessions/${id}`)).status, 200);
			const stream = follow(id);
			assert.equal(await stream.ready, 200, "a session that does not run is followed from its file");
			await stream.waitFor((e) => e.event === "session.snapshot", "the snapshot from the file");
			streams.push(stream);
		}
		assert.equal(spawned(), 0, "three sessions looked at, no extension process");
		const listed = await api.call<{ sessions: { live: boolean }[] }>("GET", "/api/pi/sessions");
		assert.ok(
			listed.body.sessions.every((s) => !s.live),
			"none runs",
		);

		const [first] = streams;
		assert.equal((await api.call("POST", `/api/pi/sessions/${ids[0]}/prompt`, { text: "delta dates" })).status, 202);
		await first!.waitFor(
			(e) => e.event === "session.info" && (e.payload.session as { starting?: boolean }).starting === true,
			"the page is told the session is starting",
		);
		await first!.waitFor(
			(e) => e.event === "session.info" && (e.payload.session as { live?: boolean }).live === true,
			"then that it runs",
		);
		await first!.waitFor((e) => e.event === "agent.end", "the answer, on the stream opened before the start");
		assert.equal(spawned(), 1, "the prompt started one runtime: one extension process");
		for (const s of streams) s.close();
	});

	test("a session `pier run` makes appears on the daemon stream, and search reads every message", async () => {
		const daemon = api.events("");
		await daemon.ready;
		await outside("epsilon elderberries");
		const created = await daemon.waitFor(
			(e) =>
				e.event === "sessions.changed" &&
				(e.payload.session as { firstMessage?: string } | undefined)?.firstMessage === "epsilon elderberries",
			"the outside session, without a reload",
		);
		const id = created.payload.id as string;
		// A second prompt in the same file: not its first message, found by search all the same.
		await outside("--session", join(sessionsDir(), sessionFile(id)!), "zeta zucchini");
		await daemon.waitFor(
			(e) => e.event === "sessions.changed" && e.payload.id === id && e.payload.reason === "updated",
			"the outside write to a listed session",
		);
		daemon.close();
		assert.deepEqual(await listedIds("ZUCCHINI"), [id], "a later message matches, case-insensitive");
		assert.deepEqual(await listedIds("no such words anywhere"), []);
	});

	test("a session another pier holds names its holder; a prompt is refused without a CLI flag; a copy goes on", async () => {
		// alpha: not the session the first test started (the daemon would hold that one itself).
		const [id] = await listedIds("alpha");
		assert.ok(id);
		const file = join(sessionsDir(), sessionFile(id)!);
		// A real second holder: pier in RPC mode holds the lease while its stdin stays open.
		const holder = spawn(process.execPath, [PIER_BIN, "--mode", "rpc", "--session", file], {
			cwd: project,
			env: cleanEnv(agentDir),
			stdio: ["pipe", "ignore", "ignore"],
		});
		const exited = new Promise((done) => holder.on("exit", done));
		try {
			const held = await until(async () => {
				const view = await api.call<{ session: { heldBy?: { holder: string; pid: number } } }>(
					"GET",
					`/api/pi/sessions/${id}`,
				);
				return view.body.session.heldBy;
			}, "the lease is seen");
			assert.match(held.holder, /^pier /);
			const refused = await api.call<{ error: { code: string; message: string } }>(
				"POST",
				`/api/pi/sessions/${id}/prompt`,
				{ text: "mine" },
			);
			assert.equal(refused.status, 409);
			assert.equal(refused.body.error.code, "in_use");
			assert.doesNotMatch(refused.body.error.message, /--fork/, "the page offers buttons, not a CLI flag");
			assert.match(refused.body.error.message, new RegExp(`pid ${held.pid}`));
			const copy = await api.call<{ session: { id: string; firstMessage?: string } }>(
				"POST",
				`/api/pi/sessions/${id}/copy`,
				{},
			);
			assert.equal(copy.status, 201, JSON.stringify(copy.body));
			assert.notEqual(copy.body.session.id, id);
			assert.equal(copy.body.session.firstMessage, "alpha apples");
		} finally {
			holder.stdin?.end();
			await exited;
		}
	});

	test("the trash lists a deleted session until it is restored", async () => {
		const [id] = await listedIds("beta");
		assert.ok(id);
		const deleted = await api.call<{ undoUntil: number }>("DELETE", `/api/pi/sessions/${id}`);
		assert.equal(deleted.status, 200);
		assert.ok(deleted.body.undoUntil - Date.now() > 24 * 60 * 60_000, "the trash keeps it for days, not seconds");
		const trash = await api.call<{ sessions: { id: string; firstMessage?: string; purgeAt: string }[] }>(
			"GET",
			"/api/pi/trash",
		);
		assert.equal(trash.status, 200);
		assert.deepEqual(
			trash.body.sessions.map((s) => [s.id, s.firstMessage, Date.parse(s.purgeAt)]),
			[[id, "beta bananas", deleted.body.undoUntil]],
		);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/restore`, {})).status, 200);
		const after = await api.call<{ sessions: unknown[] }>("GET", "/api/pi/trash");
		assert.deepEqual(after.body.sessions, []);
		assert.ok((await listedIds()).includes(id));
	});
});

async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
	const deadline = Date.now() + STEP;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 100));
	}
}
