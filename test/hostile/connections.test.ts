/**
 * The chamber's connections and sessions under abuse, against a real `pier serve`:
 * - slow partial requests are dropped in seconds (Node's defaults held them 89 s);
 * - past the cap on sockets that have not sent a request, half-open ones make room for a real request; when every
 *   signed-in socket is a live event stream, one more signed-in request is refused (503) while unauthenticated ones
 *   still have their own share; the daemon answers again when they go;
 * - 1,000 logins from one client do not sign another browser (real Chromium) out;
 * - a GET on a session's event stream does not start that session's runtime (no extension process spawned).
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, EventReader, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { freshRequest, hostOf, slowRequest } from "../helpers/sockets.js";
import { DESKTOP, launchBrowser, see, signIn, STEP } from "../chamber-web/browser-helpers.js";

const PASSWORD = "correct horse battery";
const CAP = 256;
const PENDING = 1024;

const status = async (url: string, headers: Record<string, string> = {}) =>
	(await freshRequest(url, "/api/auth/status", headers)).status;

describe("connections and sessions", () => {
	const dir = tempDir("pier-connections-");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		serve = await startServe(["--no-examples", "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir: join(dir.path, "agent"),
			cwd: dir.path,
		});
		api = new ApiClient(serve.url);
		assert.equal((await api.login(PASSWORD)).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("slow partial requests are dropped within seconds, headers or body", async () => {
		const { host, port } = hostOf(serve.url);
		const headers = slowRequest(
			serve.url,
			`GET /api/auth/status HTTP/1.1\r\nHost: ${host}:${port}\r\n`,
			"X-Slow: 1\r\n",
		);
		const body = slowRequest(
			serve.url,
			`POST /api/auth/login HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"pass`,
			" ",
			1000,
		);
		const [h, b] = await Promise.all([headers.closed, body.closed]);
		console.log(`# slow headers dropped after ${h.ms} ms, slow body after ${b.ms} ms`);
		assert.ok(h.ms < 8_000, `slow headers held ${h.ms} ms`);
		assert.ok(b.ms < 13_000, `slow body held ${b.ms} ms`);
		assert.match(h.answer, /^HTTP\/1\.1 408/);
		assert.match(b.answer, /^HTTP\/1\.1 408/);
		assert.equal(await status(serve.url), 200);
	});

	test("past the cap, half-open sockets make room for real requests; live streams are never dropped for one", async () => {
		const { host, port } = hostOf(serve.url);
		// Sockets that each send half a request line and wait: 44 more than the daemon keeps. Opened in batches,
		// each connected before the next, so none waits on the listen backlog.
		const flood: ReturnType<typeof slowRequest>[] = [];
		while (flood.length < PENDING + 44) {
			const batch = Array.from({ length: Math.min(256, PENDING + 44 - flood.length) }, () =>
				slowRequest(serve.url, `GET / HTTP/1.1\r\nHost: ${host}:${port}\r\n`),
			);
			await Promise.all(batch.map((f) => f.connected));
			flood.push(...batch);
		}
		await new Promise((r) => setTimeout(r, 500));
		const closedEarly = flood.filter((f) => f.socket.destroyed || f.socket.readyState === "closed").length;
		// While all of them are still inside their header timeout, a real request gets through.
		const t0 = Date.now();
		assert.equal(await status(serve.url), 200);
		console.log(
			`# ${PENDING + 44} half-open sockets: ${closedEarly} closed by the cap; a real request answered in ${Date.now() - t0} ms`,
		);
		assert.ok(closedEarly >= 44, `only ${closedEarly} closed`);
		await Promise.all(flood.map((f) => f.closed));

		// Now fill every slot with a live event stream (a device token per stream is not needed: one will do).
		const created = await api.call<{ token: string }>("POST", "/api/auth/tokens", { name: "streams" });
		const streamer = new ApiClient(serve.url);
		streamer.bearer = created.body.token;
		const streams: EventReader[] = [];
		for (let i = 0; i < CAP; i++) streams.push(streamer.events(""));
		const opened = await Promise.all(streams.map((s) => s.ready));
		assert.deepEqual([...new Set(opened)], [200]);
		await Promise.all(streams.map((s) => s.waitFor(() => true, "a first event", 5000).catch(() => undefined)));
		// One more signed-in socket: refused at once, and no stream was sacrificed for it.
		const signedIn = { authorization: `Bearer ${created.body.token}` };
		const extra = await freshRequest(serve.url, "/api/pi/sessions", signedIn);
		assert.equal(extra.status, 503, `a signed-in socket past the cap: ${extra.status} ${extra.body}`);
		assert.match(extra.body, /"code":"busy"/);
		assert.equal(streams.filter((s) => s.closed).length, 0, "every stream is still open");
		// Signed-out clients (the sign-in page) have a share of their own.
		assert.equal(await status(serve.url), 200);
		for (const s of streams.splice(0, 8)) s.close();
		await new Promise((r) => setTimeout(r, 300));
		assert.equal(await status(serve.url, signedIn), 200, "the daemon answers once sockets are free");
		for (const s of streams) s.close();
	});

	test("1,000 logins from one client do not sign another browser out", async () => {
		const browser = await launchBrowser();
		try {
			const page = await (await browser.newContext(DESKTOP)).newPage();
			page.setDefaultTimeout(STEP);
			await signIn(page, serve.url);
			await see(page.getByTestId("connection-state"), /^live$/);

			// Sign-ins through one-time links (the flooding client mints them with its own sign-in): the same
			// path as a password login once the password is checked, without 1,000 scrypt hashes.
			const flood = async (count: number, use: boolean) => {
				const statuses = new Map<string, number>();
				const started = Date.now();
				let sent = 0;
				const worker = async (): Promise<void> => {
					while (sent < count) {
						sent++;
						const link = await api.call<{ token: string }>("POST", "/api/auth/pairing-links", {});
						assert.equal(link.status, 200, JSON.stringify(link.body));
						const client = new ApiClient(serve.url);
						const reply = await client.call<{ error?: { code: string } }>("POST", "/api/auth/pair", {
							token: link.body.token,
						});
						const key = `${reply.status}${reply.body?.error ? ` ${reply.body.error.code}` : ""}`;
						statuses.set(key, (statuses.get(key) ?? 0) + 1);
						// Once only used sessions are left, a fresh one may be pushed out before this first use.
						if (use && reply.status === 200) await client.call("GET", "/api/auth/status");
					}
				};
				await Promise.all(Array.from({ length: 4 }, worker));
				const tally = Object.fromEntries(statuses);
				console.log(
					`# ${count} sign-ins${use ? ", each then used" : ""}: ${Date.now() - started} ms, ${JSON.stringify(tally)}`,
				);
				return tally;
			};

			// Never-used sessions only ever push out each other.
			assert.deepEqual(await flood(1000, false), { "200": 1000 });
			await page.reload();
			await page.getByTestId("session-list").waitFor();
			assert.equal(await page.getByTestId("login-password").count(), 0, "still signed in after 1,000 sign-ins");

			// Sign-ins that use their session fill the cap; past it sign-ins are refused, nobody is signed out.
			const used = await flood(1100, true);
			assert.ok((used["503 session_limit"] ?? 0) > 0, JSON.stringify(used));
			assert.equal((used["200"] ?? 0) + (used["503 session_limit"] ?? 0), 1100, JSON.stringify(used));
			await page.reload();
			await page.getByTestId("session-list").waitFor();
			assert.equal(await page.getByTestId("login-password").count(), 0, "still signed in at the cap");
			await see(page.getByTestId("connection-state"), /^live$/);
			assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200, "the flooding client too");
		} finally {
			await browser.close();
		}
	});
});

/** Direct children of `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
	const found: number[] = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const stat = readFileSync(`/proc/${name}/stat`, "utf8");
			// The command name (field 2) may hold spaces and parentheses; the parent pid follows its last ")".
			const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
			if (ppid === pid) found.push(Number(name));
		} catch {
			// Gone meanwhile.
		}
	}
	return found;
}

test("a GET on a session's event stream does not start its runtime; POST …/open does", async () => {
	using dir = tempDir("pier-stream-start-");
	const args = [
		"--no-examples",
		"-e",
		join(REPO_ROOT, "test/fixtures/chamber/process-ui"),
		"--state-dir",
		join(dir.path, "state"),
		"--ui-password",
		PASSWORD,
	];
	const options = { agentDir: join(dir.path, "agent"), cwd: dir.path };
	let serve = await startServe(args, options);
	let id: string;
	try {
		const api = new ApiClient(serve.url);
		assert.equal((await api.login(PASSWORD)).status, 200);
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		id = created.body.session.id;
		const stream = api.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the snapshot");
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "agent.end", "the answer");
		stream.close();
	} finally {
		assert.equal(await serve.stop(), 0);
	}

	serve = await startServe(args, options);
	try {
		const pid = serve.process.pid ?? 0;
		const api = new ApiClient(serve.url);
		assert.equal((await api.login(PASSWORD)).status, 200);
		const before = childrenOf(pid);
		const listed = async () =>
			(await api.call<{ sessions: { id: string; live: boolean }[] }>("GET", "/api/pi/sessions")).body.sessions.find(
				(s) => s.id === id,
			);
		assert.equal((await listed())?.live, false);

		// The GET alone, as any client (or a page replaying a cookie) would send it: followed from the file.
		const get = new EventReader(new URL(`/api/pi/events?session=${id}`, serve.url), api.headers());
		assert.equal(await get.ready, 200);
		await get.waitFor((e) => e.event === "session.snapshot", "the snapshot read from the file");
		get.close();
		const extensions = await api.call<{ error: { code: string } }>("GET", `/api/pi/extensions?session=${id}`);
		assert.equal(extensions.status, 409);
		assert.equal(extensions.body.error.code, "not_open");
		const reply = await api.call("GET", `/api/pi/sessions/${id}`);
		assert.equal(reply.status, 200, "the session is still viewable from its file");
		await new Promise((r) => setTimeout(r, 1000));
		assert.deepEqual(childrenOf(pid), before, "no extension process was spawned");
		assert.equal((await listed())?.live, false, "the session is not running");

		// The explicit, state-changing request starts it: its process extension appears.
		const open = await api.call<{ session: { live: boolean } }>("POST", `/api/pi/sessions/${id}/open`, {});
		assert.equal(open.status, 200, JSON.stringify(open.body));
		assert.equal(open.body.session.live, true);
		const deadline = Date.now() + STEP;
		while (childrenOf(pid).length <= before.length && Date.now() < deadline)
			await new Promise((r) => setTimeout(r, 100));
		assert.ok(childrenOf(pid).length > before.length, "the positive control: opening spawns the extension");
		const live = api.events(`session=${id}`);
		await live.waitFor((e) => e.event === "session.snapshot", "the snapshot of the open session");
		live.close();
	} finally {
		await serve.stop();
	}
});
