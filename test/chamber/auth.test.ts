import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { credentialRoutes } from "../../src/chamber/auth/credential-routes.js";
import { authRoutes, checkOrigin } from "../../src/chamber/auth/http.js";
import { type AuthEnv, requireAuth } from "../../src/chamber/auth/principal.js";
import { LoginRateLimiter, WorkGate } from "../../src/chamber/auth/rate-limit.js";
import { AuthStore } from "../../src/chamber/auth/store.js";

/** The status answer without its pair command, which names how this test's process was started; that it is there is checked. */
async function statusOf(res: Response): Promise<Record<string, unknown>> {
	const { pairCommand, ...rest } = (await res.json()) as { pairCommand?: string };
	assert.match(pairCommand ?? "", / pair$/, "what to run for a sign-in link");
	return rest;
}

const PASSWORD = "correct horse battery staple";

function tempDir(): { path: string; [Symbol.dispose](): void } {
	const path = mkdtempSync(join(tmpdir(), "pier-auth-"));
	return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

class Clock {
	t = Date.parse("2025-01-01T00:00:00Z");
	now = () => this.t;
	advance(ms: number): void {
		this.t += ms;
	}
}

/** The daemon's wiring in miniature: auth routes plus one guarded route. */
function makeApp(store: AuthStore, clock: Clock, clientKey?: (c: unknown) => string) {
	const app = new Hono<AuthEnv>();
	const limiter = new LoginRateLimiter({ now: clock.now });
	app.route(
		"/api/auth",
		authRoutes(store, { limiter, ...(clientKey ? { clientKey } : {}), routes: credentialRoutes(store, {}) }),
	);
	app.use("/api/pi/*", checkOrigin(), requireAuth(store));
	app.get("/api/pi/whoami", (c) => c.json(c.get("principal")));
	app.post("/api/pi/echo", async (c) => c.json(await c.req.json()));
	return app;
}

function setup(options: { password?: boolean } = {}) {
	const dir = tempDir();
	const clock = new Clock();
	const file = join(dir.path, "state", "auth.json");
	const store = new AuthStore(file, { now: clock.now });
	return {
		dir,
		clock,
		file,
		store,
		app: makeApp(store, clock),
		ready: options.password ? store.setPassword(PASSWORD) : undefined,
	};
}

type App = ReturnType<typeof makeApp>;

async function post(app: App, path: string, body: unknown, headers: Record<string, string> = {}) {
	return app.request(path, {
		method: "POST",
		headers: { "content-type": "application/json", ...headers },
		body: JSON.stringify(body),
	});
}

async function errorCode(res: Response): Promise<string> {
	const body = (await res.json()) as { error: { code: string; message: string } };
	assert.equal(typeof body.error.message, "string");
	return body.error.code;
}

/** The cookie and the browser key a sign-in answer carries: the headers a signed-in browser sends. */
type Creds = { cookie: string; "x-pier-key": string };

async function credentials(res: Response): Promise<Creds> {
	const body = (await res.json()) as { ok: boolean; key: string };
	assert.equal(body.ok, true);
	assert.match(body.key, /^[A-Za-z0-9_-]{43}$/);
	return { cookie: sessionCookie(res), "x-pier-key": body.key };
}

function sessionCookie(res: Response): string {
	const header = res.headers.get("set-cookie");
	assert.ok(header, "expected a Set-Cookie header");
	const match = /pier_session=([^;]*)/.exec(header);
	assert.ok(match?.[1], `expected pier_session in ${header}`);
	return `pier_session=${match[1]}`;
}

async function login(app: App): Promise<Creds> {
	const res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 200);
	return credentials(res);
}

test("the password is stored only as an scrypt hash, in a private file", async () => {
	const { dir, file, store, clock } = setup();
	using _ = dir;
	assert.equal(store.passwordConfigured, false);
	await store.setPassword(PASSWORD);
	const text = readFileSync(file, "utf8");
	assert.ok(!text.includes(PASSWORD), "plaintext password in auth.json");
	const stored = JSON.parse(text).password;
	assert.deepEqual(
		{ algo: stored.algo, N: stored.N, r: stored.r, p: stored.p },
		{ algo: "scrypt", N: 16384, r: 8, p: 1 },
	);
	assert.equal(Buffer.from(stored.salt, "base64").length, 16);
	assert.equal(Buffer.from(stored.hash, "base64").length, 64);
	assert.equal(statSync(file).mode & 0o777, 0o600);
	assert.equal(await store.verifyPassword(PASSWORD), true);
	assert.equal(await store.verifyPassword("wrong"), false);

	const reopened = new AuthStore(file, { now: clock.now });
	assert.equal(reopened.passwordConfigured, true);
	assert.equal(await reopened.ensurePassword(PASSWORD), "unchanged");
	const session = reopened.createBrowserSession();
	assert.equal(reopened.verifyBrowserSession(session.token, session.key), true);
	// A daemon started with another password replaces the hash and signs browsers out.
	assert.equal(await reopened.ensurePassword("new password"), "replaced");
	assert.equal(await reopened.verifyPassword(PASSWORD), false);
	assert.equal(await reopened.verifyPassword("new password"), true);
	assert.equal(reopened.verifyBrowserSession(session.token, session.key), false);
});

test("login: no password configured, wrong password, then success with a strict cookie", async () => {
	const { dir, store, app } = setup();
	using _ = dir;
	let res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 400);
	assert.equal(await errorCode(res), "no_password");

	await store.setPassword(PASSWORD);
	res = await app.request("/api/auth/status");
	assert.deepEqual(await statusOf(res), { authenticated: false, passwordConfigured: true });

	res = await post(app, "/api/auth/login", { password: "nope" });
	assert.equal(res.status, 401);
	assert.equal(await errorCode(res), "bad_password");
	assert.equal(res.headers.get("set-cookie"), null);

	res = await post(app, "/api/auth/login", {});
	assert.equal(res.status, 400);
	const body = (await res.json()) as { error: { code: string; message: string } };
	assert.equal(body.error.code, "bad_request");
	assert.match(body.error.message, /password/);

	res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 200);
	assert.equal(res.headers.get("cache-control"), "no-store");
	const setCookie = res.headers.get("set-cookie") ?? "";
	assert.match(setCookie, /^pier_session=[A-Za-z0-9_-]{43};/);
	assert.match(setCookie, /; HttpOnly/);
	assert.match(setCookie, /; SameSite=Strict/);
	assert.match(setCookie, /; Path=\//);
	assert.doesNotMatch(setCookie, /Secure/, "plain http must not get a Secure cookie");

	const creds = await credentials(res);
	res = await app.request("/api/auth/status", { headers: creds });
	assert.deepEqual(await statusOf(res), { authenticated: true, passwordConfigured: true });
	// The cookie without its key is not signed in.
	res = await app.request("/api/auth/status", { headers: { cookie: creds.cookie } });
	assert.deepEqual(await statusOf(res), { authenticated: false, passwordConfigured: true });

	// Over https the cookie is Secure.
	res = await app.request("https://chamber.example/api/auth/login", {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ password: PASSWORD }),
	});
	assert.equal(res.status, 200);
	assert.match(res.headers.get("set-cookie") ?? "", /; Secure/);
});

test("the sixth failed login within a minute is refused with Retry-After, per client", async () => {
	const dir = tempDir();
	using _ = dir;
	const clock = new Clock();
	const store = new AuthStore(join(dir.path, "auth.json"), { now: clock.now });
	await store.setPassword(PASSWORD);
	let client = "10.0.0.1";
	const app = makeApp(store, clock, () => client);

	for (let i = 0; i < 5; i++) {
		const res = await post(app, "/api/auth/login", { password: `guess ${i}` });
		assert.equal(res.status, 401, `attempt ${i + 1}`);
		clock.advance(1000);
	}
	let res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 429, "blocked even with the right password");
	assert.equal(await errorCode(res), "rate_limited");
	const retryAfter = Number(res.headers.get("retry-after"));
	assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);

	// Another client is unaffected, and its success does not lift the first client's block.
	client = "10.0.0.2";
	res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 200);
	client = "10.0.0.1";
	res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 429);

	clock.advance(retryAfter * 1000);
	res = await post(app, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 200, "allowed again once the window has passed");
});

test("the login limiter slides, and its memory is bounded", () => {
	const clock = new Clock();
	const limiter = new LoginRateLimiter({ limit: 5, windowMs: 60_000, maxKeys: 100, now: clock.now });
	for (let i = 0; i < 5; i++) {
		limiter.fail("a");
		clock.advance(10_000);
	}
	// Failures at 0, 10, 20, 30, 40 s; now 50 s: the one at 0 s frees a slot at 60 s.
	assert.deepEqual(limiter.check("a"), { allowed: false, retryAfterSeconds: 10 });
	clock.advance(10_000);
	assert.deepEqual(limiter.check("a"), { allowed: true });
	limiter.fail("a");
	assert.equal(limiter.check("a").allowed, false);

	for (let i = 0; i < 1000; i++) limiter.fail(`spray-${i}`);
	assert.ok(limiter.size <= 100, `size ${limiter.size}`);
	clock.advance(60_000);
	limiter.fail("late");
	assert.equal(limiter.size, 1, "expired keys are dropped");
});

test("guarded routes: cookie, device tokens, garbage and revocation", async () => {
	const { dir, store, app, ready } = setup({ password: true });
	using _ = dir;
	await ready;
	const unauthorized = { error: { code: "unauthorized", message: "sign in or send a device token" } };

	let res = await app.request("/api/pi/whoami");
	assert.equal(res.status, 401);
	assert.deepEqual(await res.json(), unauthorized);
	res = await app.request("/api/pi/whoami", { headers: { cookie: "pier_session=garbage" } });
	assert.equal(res.status, 401);
	res = await app.request("/api/pi/whoami", { headers: { authorization: "Bearer pier_dt_not-a-token" } });
	assert.equal(res.status, 401);
	assert.deepEqual(await res.json(), unauthorized);
	res = await app.request("/api/auth/tokens");
	assert.equal(res.status, 401);

	const creds = await login(app);
	res = await app.request("/api/pi/whoami", { headers: creds });
	assert.equal(res.status, 200);
	assert.equal(((await res.json()) as { kind: string }).kind, "browser");
	// Either half alone is refused; the cookie alone says what is missing.
	res = await app.request("/api/pi/whoami", { headers: { cookie: creds.cookie } });
	assert.equal(res.status, 401);
	assert.equal(await errorCode(res), "browser_key_required");
	res = await app.request("/api/pi/whoami", { headers: { cookie: creds.cookie, "x-pier-key": "wrong-key" } });
	assert.equal(await errorCode(res), "browser_key_required");
	res = await app.request("/api/pi/whoami", { headers: { "x-pier-key": creds["x-pier-key"] } });
	assert.equal(await errorCode(res), "unauthorized");
	res = await post(app, "/api/auth/tokens", { name: "stolen" }, { cookie: creds.cookie });
	assert.equal(res.status, 401, "a replayed cookie mints no device token");

	res = await post(app, "/api/auth/tokens", { name: "" }, creds);
	assert.equal(res.status, 400);
	res = await post(app, "/api/auth/tokens", { name: "  laptop  " }, creds);
	assert.equal(res.status, 200);
	const created = (await res.json()) as { id: string; name: string; token: string };
	assert.equal(created.name, "laptop");
	assert.match(created.token, /^pier_dt_[A-Za-z0-9_-]{43}$/);
	assert.ok(!readFileSync(store.path, "utf8").includes(created.token), "plaintext device token in auth.json");

	const bearer = { authorization: `Bearer ${created.token}` };
	res = await app.request("/api/pi/whoami", { headers: bearer });
	assert.equal(res.status, 200);
	assert.deepEqual(await res.json(), { kind: "device", id: created.id });

	res = await app.request("/api/auth/tokens", { headers: bearer });
	const listed = (await res.json()) as { tokens: Record<string, unknown>[] };
	assert.equal(listed.tokens.length, 1);
	assert.deepEqual(Object.keys(listed.tokens[0] ?? {}).sort(), ["createdAt", "id", "lastUsedAt", "mintedBy", "name"]);
	assert.ok(!JSON.stringify(listed).includes(created.token));

	res = await app.request(`/api/auth/tokens/${created.id}`, {
		method: "DELETE",
		headers: { ...creds, "content-type": "application/json" },
	});
	assert.equal(res.status, 200);
	assert.deepEqual(await res.json(), { ok: true, revoked: [created.id] });
	res = await app.request("/api/pi/whoami", { headers: bearer });
	assert.equal(res.status, 401);
	res = await app.request(`/api/auth/tokens/${created.id}`, {
		method: "DELETE",
		headers: { ...creds, "content-type": "application/json" },
	});
	assert.equal(res.status, 404);
	assert.equal(await errorCode(res), "not_found");

	// Logout revokes the session server-side, not only in the browser.
	res = await post(app, "/api/auth/logout", {}, creds);
	assert.equal(res.status, 200);
	assert.match(res.headers.get("set-cookie") ?? "", /pier_session=;.*Max-Age=0/);
	res = await app.request("/api/pi/whoami", { headers: creds });
	assert.equal(res.status, 401);
});

test("a pairing link signs in once, and not after it expires", async () => {
	const { dir, clock, store, app, file } = setup();
	using _ = dir;
	const first = store.createPairingToken(10 * 60_000);
	let res = await post(app, "/api/auth/pair", { token: first.token });
	assert.equal(res.status, 200);
	const creds = await credentials(res);
	res = await post(app, "/api/auth/pair", { token: first.token });
	assert.equal(res.status, 401);
	assert.equal(await errorCode(res), "bad_pairing_token");
	res = await post(app, "/api/auth/pair", { token: "never-issued" });
	assert.equal(res.status, 401);

	// A signed-in browser mints a link for another device.
	res = await post(app, "/api/auth/pairing-links", { ttlSeconds: 4000 }, creds);
	assert.equal(res.status, 400);
	res = await post(app, "/api/auth/pairing-links", {}, creds);
	assert.equal(res.status, 200);
	const link = (await res.json()) as { token: string; expiresAt: number };
	assert.equal(link.expiresAt, clock.t + 600_000);
	clock.advance(600_000);
	res = await post(app, "/api/auth/pair", { token: link.token });
	assert.equal(res.status, 401, "expired");

	// Links live in memory only: a restart invalidates them.
	const pending = store.createPairingToken(60_000);
	const restarted = new AuthStore(file, { now: clock.now });
	assert.equal(restarted.consumePairingToken(pending.token), false);
	assert.ok(!readFileSync(file, "utf8").includes(pending.token));
});

test("a browser session survives a restart and expires after 30 days", async () => {
	const { dir, clock, app, file, ready } = setup({ password: true });
	using _ = dir;
	await ready;
	const creds = await login(app);
	const token = creds.cookie.slice("pier_session=".length);
	const text = readFileSync(file, "utf8");
	assert.ok(!text.includes(token), "plaintext session token in auth.json");
	assert.ok(!text.includes(creds["x-pier-key"]), "plaintext browser key in auth.json");

	const restarted = new AuthStore(file, { now: clock.now });
	const app2 = makeApp(restarted, clock);
	let res = await app2.request("/api/pi/whoami", { headers: creds });
	assert.equal(res.status, 200);

	clock.advance(30 * 24 * 60 * 60 * 1000);
	res = await app2.request("/api/pi/whoami", { headers: creds });
	assert.equal(res.status, 401);
});

test("a missing auth.json is empty; a corrupt one is an error naming the file, left untouched", async () => {
	using dir = tempDir();
	const file = join(dir.path, "auth.json");
	const empty = new AuthStore(file);
	assert.equal(empty.passwordConfigured, false);
	assert.deepEqual(empty.listDeviceTokens(), []);

	writeFileSync(file, '{"version":1,"browserSessions":[');
	assert.throws(
		() => new AuthStore(file),
		(error: Error) => error.message.includes(file) && /not valid JSON/.test(error.message),
	);
	assert.equal(readFileSync(file, "utf8"), '{"version":1,"browserSessions":[');

	writeFileSync(file, JSON.stringify({ version: 1, browserSessions: [], deviceTokens: [{ id: "x" }] }));
	assert.throws(
		() => new AuthStore(file),
		(error: Error) => error.message.includes(file) && /deviceTokens\[0\]/.test(error.message),
	);
	writeFileSync(file, JSON.stringify({ version: 1, password: { algo: "md5" }, browserSessions: [], deviceTokens: [] }));
	assert.throws(() => new AuthStore(file), /password/);
});

test("state-changing requests need JSON and a matching Origin", async () => {
	const { dir, app, ready } = setup({ password: true });
	using _ = dir;
	await ready;
	const creds = await login(app);

	let res = await post(app, "/api/pi/echo", { a: 1 }, { ...creds, origin: "https://evil.example" });
	assert.equal(res.status, 403);
	assert.equal(await errorCode(res), "bad_origin");
	res = await post(app, "/api/auth/login", { password: PASSWORD }, { origin: "https://evil.example" });
	assert.equal(res.status, 403, "no login CSRF");
	res = await post(app, "/api/pi/echo", { a: 1 }, { ...creds, origin: "null" });
	assert.equal(res.status, 403);

	res = await app.request("/api/pi/echo", {
		method: "POST",
		headers: { ...creds, "content-type": "text/plain" },
		body: JSON.stringify({ a: 1 }),
	});
	assert.equal(res.status, 415);
	assert.equal(await errorCode(res), "bad_request");
	res = await app.request("/api/pi/echo", { method: "POST", headers: creds, body: "{}" });
	assert.ok(res.status >= 400 && res.status < 500);

	res = await post(app, "/api/pi/echo", { a: 1 }, { ...creds, origin: "http://localhost" });
	assert.equal(res.status, 200);
	res = await post(
		app,
		"/api/pi/echo",
		{ a: 1 },
		{
			...creds,
			origin: "http://127.0.0.1:7777",
			host: "127.0.0.1:7777",
			"content-type": "application/json; charset=utf-8",
		},
	);
	assert.equal(res.status, 200);
	assert.deepEqual(await res.json(), { a: 1 });
	// Reads are not state-changing and need neither.
	res = await app.request("/api/pi/whoami", { headers: { ...creds, origin: "https://evil.example" } });
	assert.equal(res.status, 200);
});

test("over a real socket: log in, then use the cookie", async () => {
	using dir = tempDir();
	const store = new AuthStore(join(dir.path, "auth.json"));
	await store.setPassword(PASSWORD);
	const app = new Hono<AuthEnv>();
	const limiter = new LoginRateLimiter();
	app.route("/api/auth", authRoutes(store, { limiter, routes: credentialRoutes(store, {}) }));
	app.use("/api/pi/*", checkOrigin(), requireAuth(store));
	app.get("/api/pi/whoami", (c) => c.json(c.get("principal")));

	const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
	await new Promise<void>((resolve) => server.once("listening", () => resolve()));
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	try {
		const bad = await fetch(`${base}/api/auth/login`, {
			method: "POST",
			headers: { "content-type": "application/json", origin: base },
			body: JSON.stringify({ password: "wrong" }),
		});
		assert.equal(bad.status, 401);
		await bad.body?.cancel();
		// The default client key is the socket's address, not the "local" fallback.
		assert.equal(limiter.size, 1);
		assert.equal(limiter.check("local").allowed, true);

		const res = await fetch(`${base}/api/auth/login`, {
			method: "POST",
			headers: { "content-type": "application/json", origin: base },
			body: JSON.stringify({ password: PASSWORD }),
		});
		assert.equal(res.status, 200);
		const setCookie = res.headers.getSetCookie();
		assert.equal(setCookie.length, 1);
		const cookie = (setCookie[0] ?? "").split(";")[0] ?? "";
		assert.match(cookie, /^pier_session=/);
		const { key } = (await res.json()) as { key: string };

		const me = await fetch(`${base}/api/pi/whoami`, { headers: { cookie, "x-pier-key": key } });
		assert.equal(me.status, 200);
		assert.equal(((await me.json()) as { kind: string }).kind, "browser");
		const anon = await fetch(`${base}/api/pi/whoami`);
		assert.equal(anon.status, 401);
		await anon.body?.cancel();
	} finally {
		await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
	}
});

test("concurrent wrong logins: each is counted before its hash, so only the allowed number are checked", async () => {
	const { dir, store, app, ready } = setup({ password: true });
	using _ = dir;
	await ready;
	let checked = 0;
	const verify = store.verifyPassword.bind(store);
	store.verifyPassword = (password: string) => {
		checked++;
		return verify(password);
	};
	const answers = await Promise.all(
		Array.from({ length: 50 }, (_, i) => post(app, "/api/auth/login", { password: `guess ${i}` })),
	);
	const statuses = answers.map((r) => r.status);
	assert.equal(checked, 5, "scrypt ran for the 5 allowed attempts only");
	assert.equal(statuses.filter((s) => s === 401).length, 5);
	assert.equal(statuses.filter((s) => s === 429).length, 45);
	assert.ok(answers.filter((r) => r.status === 429).every((r) => Number(r.headers.get("retry-after")) >= 1));
});

test("the login limiter: a reservation counts at once, and a success refunds only its own slot", () => {
	const clock = new Clock();
	const limiter = new LoginRateLimiter({ limit: 3, now: clock.now });
	const a = limiter.reserve("k");
	const b = limiter.reserve("k");
	assert.ok(a.allowed && b.allowed);
	a.refund();
	a.refund(); // twice is once
	assert.ok(limiter.reserve("k").allowed);
	assert.ok(limiter.reserve("k").allowed);
	assert.equal(limiter.reserve("k").allowed, false, "b and the two later slots fill the budget of 3");
});

test("sign-ins at the cap drop only browsers that never used their session; past that they are refused", async () => {
	using dir = tempDir();
	const clock = new Clock();
	const file = join(dir.path, "auth.json");
	const store = new AuthStore(file, { now: clock.now, maxBrowserSessions: 20 });
	await store.setPassword(PASSWORD);
	const app = makeApp(store, clock);
	const used = await login(app);
	assert.equal((await app.request("/api/pi/whoami", { headers: used })).status, 200);
	let last: { token: string; key: string } | undefined;
	for (let i = 0; i < 50; i++) last = store.createBrowserSession();
	assert.equal(store.browserSessionCount, 20);
	assert.equal((await app.request("/api/pi/whoami", { headers: used })).status, 200, "the used browser stays");
	assert.ok(last && store.verifyBrowserSession(last.token, last.key));
	// Once every slot is a used session (the "used" mark survives a restart), a sign-in is refused rather
	// than signing someone out.
	const restarted = new AuthStore(file, { now: clock.now, maxBrowserSessions: 20 });
	for (const s of Array.from({ length: 18 }, () => restarted.createBrowserSession())) {
		restarted.verifyBrowserSession(s.token, s.key);
	}
	const app2 = makeApp(restarted, clock);
	const res = await post(app2, "/api/auth/login", { password: PASSWORD });
	assert.equal(res.status, 503);
	assert.equal(await errorCode(res), "session_limit");
	assert.equal((await app2.request("/api/pi/whoami", { headers: used })).status, 200, "still signed in");
});

test("sessions stored before browser keys are dropped: their cookie alone must not sign in", () => {
	using dir = tempDir();
	const file = join(dir.path, "auth.json");
	const now = Date.now();
	writeFileSync(
		file,
		JSON.stringify({
			version: 1,
			browserSessions: [{ hash: "abc", createdAt: now, expiresAt: now + 60_000 }],
			deviceTokens: [],
		}),
	);
	const store = new AuthStore(file);
	assert.equal(store.browserSessionCount, 0);
});

test("the password-check gate runs 2 at once, queues a bounded number and turns the rest away", async () => {
	const gate = new WorkGate(2, 3);
	let running = 0;
	let peak = 0;
	const releases: (() => void)[] = [];
	const work = () =>
		new Promise<string>((resolve) => {
			running++;
			peak = Math.max(peak, running);
			releases.push(() => {
				running--;
				resolve("done");
			});
		});
	const results = Array.from({ length: 7 }, () => gate.run(work));
	// 2 run, 3 wait, 2 are refused at once.
	assert.equal(await results[5], undefined);
	assert.equal(await results[6], undefined);
	// Finish them one at a time: each finished check lets one waiter in, never more than 2 at once.
	for (let finished = 0; finished < 5; finished++) {
		for (let i = 0; i < 50 && releases.length === 0; i++) await new Promise((r) => setTimeout(r, 5));
		releases.shift()?.();
	}
	assert.deepEqual(await Promise.all(results.slice(0, 5)), ["done", "done", "done", "done", "done"]);
	assert.equal(peak, 2);
});
