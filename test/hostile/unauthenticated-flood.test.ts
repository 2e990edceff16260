/**
 * Slow unauthenticated sockets cannot lock signed-in clients out, against a real `pier serve`:
 * - ~300 sockets each send a login head and trickle its body, opening again whenever the daemon closes one; meanwhile
 *   every request of a signed-in browser (cookie + X-Pier-Key) and of a device token, each on a fresh socket from
 *   the same loopback address, is answered 200;
 * - the bounds, just past each: the 17th unauthenticated socket of one address is refused while another address
 *   still gets in; the 65th in all is refused while a signed-in request from that same address is served.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { freshRequest, tricklingFlood, tricklingLogin } from "../helpers/sockets.js";

const PASSWORD = "correct horse battery";
const FLOOD = 300;
const PER_ADDRESS = 16;
const UNAUTHENTICATED = 64;
const REQUESTS = 30;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The status of a request, or the error that stood for one (a closed socket, no answer). */
async function statusOf(...args: Parameters<typeof freshRequest>): Promise<string> {
	try {
		const reply = await freshRequest(...args);
		return reply.status === 200 ? "200" : `${reply.status} ${reply.body.slice(0, 200)}`;
	} catch (error) {
		return `error: ${(error as Error).message}`;
	}
}

describe("unauthenticated floods", () => {
	const dir = tempDir("pier-flood-");
	let serve: Serve;
	let browser: Record<string, string>;
	let device: Record<string, string>;

	before(async () => {
		serve = await startServe(["--no-examples", "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir: join(dir.path, "agent"),
			cwd: dir.path,
		});
		const api = new ApiClient(serve.url);
		assert.equal((await api.login(PASSWORD)).status, 200);
		browser = api.headers();
		assert.ok(browser.cookie && browser["x-pier-key"], "a browser's cookie and key");
		const created = await api.call<{ token: string }>("POST", "/api/auth/tokens", { name: "phone" });
		device = { authorization: `Bearer ${created.body.token}` };
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test(`${FLOOD} trickling, reconnecting login sockets: a signed-in browser and a device token are served`, async () => {
		const flood = tricklingFlood(serve.url, FLOOD);
		try {
			await pause(1500);
			const statuses = new Map<string, number>();
			const count = (s: string) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
			for (let i = 0; i < REQUESTS; i++) {
				count(await statusOf(serve.url, "/api/auth/status", browser));
				count(await statusOf(serve.url, "/api/pi/sessions", browser));
				count(await statusOf(serve.url, "/api/pi/sessions", device));
				// A reload of the page: the document carries the cookie, not the key.
				count(await statusOf(serve.url, "/", { cookie: browser.cookie! }));
			}
			const tally = Object.fromEntries(statuses);
			console.log(
				`# signed-in requests under the flood: ${JSON.stringify(tally)}; flood: ${JSON.stringify(flood.answers())}`,
			);
			assert.deepEqual(tally, { "200": REQUESTS * 4 }, "every signed-in request is answered 200");
			// The flood really ran against the bounds: its extra sockets were refused, and it kept reconnecting.
			assert.ok((flood.answers()["503"] ?? 0) > 0, JSON.stringify(flood.answers()));
			assert.ok(flood.opened() > FLOOD);
			// A signed-in request really is authenticated (status says so, not just 200).
			const status = await freshRequest(serve.url, "/api/auth/status", browser);
			assert.equal(JSON.parse(status.body).authenticated, true);
		} finally {
			await flood.stop();
		}
		assert.equal(await statusOf(serve.url, "/api/auth/status"), "200", "signed-out clients get in once it stops");
	});

	test(`past ${PER_ADDRESS} per address and ${UNAUTHENTICATED} in all, unauthenticated requests are refused`, async () => {
		const holders: ReturnType<typeof tricklingLogin>[] = [];
		try {
			// One address, one past its bound: exactly one of them is refused at once, with a 503 that says why.
			const first = Array.from({ length: PER_ADDRESS + 1 }, () => tricklingLogin(serve.url, "127.0.0.2"));
			holders.push(...first);
			const refused = await Promise.race(first.map((s) => s.closed));
			assert.match(refused.answer, /^HTTP\/1\.1 503/);
			assert.match(refused.answer, /retry-after: 1/i);
			assert.match(refused.answer, /"code":"busy"/);
			await pause(300);
			assert.equal(first.filter((s) => s.socket.destroyed).length, 1, "only the one past the bound");
			assert.equal(first.filter((s) => s.answer() === "").length, PER_ADDRESS, "the others still trickle");
			// Another address has a bound of its own.
			assert.equal(await statusOf(serve.url, "/api/auth/status", {}, "127.0.0.3"), "200");

			// Fill the rest of the unauthenticated share from three more addresses: 64 in all.
			for (const address of ["127.0.0.3", "127.0.0.4", "127.0.0.5"]) {
				for (let i = 0; i < PER_ADDRESS; i++) holders.push(tricklingLogin(serve.url, address));
			}
			await pause(500);
			assert.equal(holders.filter((s) => !s.socket.destroyed).length, UNAUTHENTICATED);
			const past = await statusOf(serve.url, "/api/auth/status", {}, "127.0.0.6");
			assert.match(past, /^503 .*"code":"busy"/, "the 65th unauthenticated request");
			// The same address, signed in: its own pool.
			assert.equal(await statusOf(serve.url, "/api/pi/sessions", browser, "127.0.0.6"), "200");
			assert.equal(await statusOf(serve.url, "/api/pi/sessions", device, "127.0.0.6"), "200");
		} finally {
			for (const s of holders) s.socket.destroy();
			await Promise.all(holders.map((s) => s.closed));
		}
		await pause(200);
		assert.equal(await statusOf(serve.url, "/api/auth/status", {}, "127.0.0.6"), "200", "room again once they go");
	});
});
