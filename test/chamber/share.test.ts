/**
 * Share links (docs/security.md, "Share links"): a `view` token reaches only its session's read routes, a
 * `control` token only its session, both are refused everywhere else by one allow-list at the auth boundary.
 * The sweep walks every route the app registers (Hono's `app.routes`), so a route added later is covered too.
 * Then, on a real `pier serve`: a control link acts, a view link watches live, revoking or expiring a link ends
 * its open stream, and guessing tokens is rate-limited like logins.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chamberApp } from "../../src/chamber/server.js";
import { SHARE_TTL_DEFAULT_SECONDS, SHARE_TTL_MAX_SECONDS } from "../../src/chamber/share/share-wire.js";
import { ApiClient, type ServedChamber, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

type Body = { error?: { code: string; message: string } } & Record<string, unknown>;
type Built = Awaited<ReturnType<typeof chamberApp>>;

describe("share links on the app (every registered route)", () => {
	const dir = tempDir("pier-share-");
	let built: Built;
	let owner: string;
	let a: string;
	let b: string;
	const saved = process.env.PI_CODING_AGENT_DIR;

	const call = async (token: string | undefined, method: string, path: string, body?: unknown) => {
		const send = !["GET", "HEAD"].includes(method) && (body !== undefined || method !== "DELETE");
		const res = await built.app.request(path, {
			method,
			headers: {
				...(token ? { authorization: `Bearer ${token}` } : {}),
				...(send ? { "content-type": "application/json" } : {}),
			},
			...(send ? { body: JSON.stringify(body ?? {}) } : {}),
		});
		const text = await res.text();
		let parsed: Body = {};
		try {
			parsed = JSON.parse(text) as Body;
		} catch {
			// The web app's files and the export are not JSON.
		}
		return { status: res.status, body: parsed, headers: res.headers };
	};
	const share = async (session: string, body: unknown, token = owner) =>
		call(token, "POST", `/api/pi/sessions/${session}/share`, body);

	/** Every (method, path) the app registers, handlers and middleware alike, with the params filled in. */
	const registered = (session: string): { method: string; path: string; pattern: string }[] => {
		const seen = new Set<string>();
		const out: { method: string; path: string; pattern: string }[] = [];
		for (const r of built.app.routes) {
			const method = r.method === "ALL" ? "POST" : r.method;
			const path = r.path
				.split("/")
				.map((s) => (s === ":id" ? session : s.startsWith(":") || s === "*" ? "x" : s))
				.join("/");
			const key = `${method} ${path}`;
			if (seen.has(key)) continue;
			seen.add(key);
			out.push({ method, path, pattern: r.path });
		}
		return out;
	};

	before(async () => {
		process.env.PI_CODING_AGENT_DIR = join(dir.path, "agent");
		const project = join(dir.path, "project");
		mkdirSync(project, { recursive: true });
		built = await chamberApp({ stateDir: join(dir.path, "state"), defaultCwd: project, heartbeatMs: 3_600_000 });
		owner = built.auth.createDeviceToken("owner").token;
		for (const slot of ["a", "b"]) {
			const made = await call(owner, "POST", "/api/pi/sessions", {});
			assert.equal(made.status, 201, JSON.stringify(made.body));
			const id = (made.body.session as { id: string }).id;
			if (slot === "a") a = id;
			else b = id;
		}
	});
	after(async () => {
		await built.close();
		if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved;
		dir[Symbol.dispose]();
	});

	test("an owner creates a link: token once, kept hashed, TTL an hour by default and a day at most", async () => {
		const made = await share(a, { mode: "view" });
		assert.equal(made.status, 201, JSON.stringify(made.body));
		const token = made.body.token as string;
		assert.match(token, /^pier_sh_[\w-]{43}$/);
		const url = new URL(made.body.url as string);
		assert.equal(url.hash, `#share=${token}`, "the token rides in the fragment, which is never sent");
		assert.equal(url.searchParams.get("s"), a);
		const ttl = Date.parse(made.body.expiresAt as string) - Date.parse(made.body.createdAt as string);
		assert.equal(ttl, SHARE_TTL_DEFAULT_SECONDS * 1000);
		assert.equal(made.headers.get("cache-control"), "no-store");

		const file = join(dir.path, "state", "share-links.json");
		const stored = readFileSync(file, "utf8");
		assert.ok(!stored.includes(token), "the token is not stored");
		assert.ok(stored.includes(createHash("sha256").update(token).digest("base64url")), "its hash is");
		assert.equal(statSync(file).mode & 0o777, 0o600);

		assert.equal((await share(a, { mode: "control", ttlSeconds: SHARE_TTL_MAX_SECONDS })).status, 201);
		for (const bad of [
			{ mode: "view", ttlSeconds: SHARE_TTL_MAX_SECONDS + 1 },
			{ mode: "view", ttlSeconds: 0 },
			{ mode: "view", ttlSeconds: 1.5 },
			{ mode: "admin" },
			{ mode: "view", session: b },
		]) {
			const refused = await share(a, bad);
			assert.equal(refused.status, 400, JSON.stringify(bad));
			assert.equal(refused.body.error?.code, "bad_request");
		}
		const past = await share(a, { mode: "view", ttlSeconds: SHARE_TTL_MAX_SECONDS + 1 });
		assert.match(past.body.error!.message, /ttlSeconds/);
		assert.equal((await share("no-such-session", { mode: "view" })).status, 404);

		const listed = await call(owner, "GET", `/api/pi/sessions/${a}/shares`);
		assert.equal(listed.status, 200);
		const shares = listed.body.shares as Record<string, unknown>[];
		assert.ok(shares.some((s) => s.id === made.body.id && s.mode === "view"));
		assert.ok(shares.every((s) => s.token === undefined && s.sessionId === a));
		assert.deepEqual((await call(owner, "GET", `/api/pi/sessions/${b}/shares`)).body.shares, []);
	});

	test("a view token: its session's reads, and 403 naming the link on every other registered route", async () => {
		const made = await share(a, { mode: "view" });
		const token = made.body.token as string;
		const id = made.body.id as string;
		const reads = new Set([
			`GET /api/pi/sessions/${a}`,
			`GET /api/pi/sessions/${a}/rows`,
			`GET /api/pi/sessions/${a}/drawings`,
			`GET /api/pi/sessions/${a}/images/x/x`,
			"GET /api/pi/tui-palette.css",
			"GET /api/pi/shares/current",
		]);
		let refused = 0;
		for (const session of [a, b]) {
			for (const { method, path } of registered(session)) {
				const res = await call(token, method, path);
				const key = `${method} ${path}`;
				if (reads.has(key)) {
					assert.notEqual(res.status, 403, `${key} is a read of the shared session`);
					assert.notEqual(res.status, 401, key);
					continue;
				}
				if (res.status === 403 && res.body.error?.code === "share_scope") {
					assert.match(res.body.error.message, new RegExp(`share link ${id} \\(view\\)`), key);
					refused++;
					continue;
				}
				// Anything else must be a route that needs no sign-in at all: the token changes nothing there.
				const anonymous = await call(undefined, method, path);
				assert.notEqual(anonymous.status, 401, `${key} needs a sign-in, yet the view token got ${res.status}`);
				assert.equal(res.status, anonymous.status, `${key}: the token must add nothing to a public route`);
			}
		}
		assert.ok(refused > 60, `most routes are refused (${refused})`);
		// Reads of the other session, the session list and the daemon stream; the stream of its own session passes.
		for (const path of [`/api/pi/sessions/${b}`, `/api/pi/sessions/${b}/rows`, "/api/pi/sessions", "/api/pi/events"]) {
			assert.equal((await call(token, "GET", path)).status, 403, path);
		}
		assert.equal((await call(token, "GET", `/api/pi/events?session=${b}`)).status, 403);
		// The path is compared after decoding, exactly: no smuggled second segment, no trailing slash.
		for (const path of [
			`/api/pi/sessions/${a}%2F..%2F${b}`,
			`/api/pi/sessions/${a}/`,
			`/api/pi/sessions/${encodeURIComponent(a)}%2Fprompt`,
		]) {
			assert.equal((await call(token, "GET", path)).status, 403, path);
		}
		// The hostile targets the issue names: terminal, files, changes, MCP, prompt, dialogs.
		for (const [method, path] of [
			["POST", `/api/pi/sessions/${a}/terminals`],
			["GET", `/api/pi/sessions/${a}/terminals/stream`],
			["GET", `/api/pi/sessions/${a}/files/list`],
			["GET", `/api/pi/sessions/${a}/changes`],
			["GET", `/api/pi/sessions/${a}/mcp`],
			["POST", `/api/pi/sessions/${a}/prompt`],
			["POST", `/api/pi/sessions/${a}/dialogs/r1`],
			["POST", `/api/pi/sessions/${a}/share`],
		] as const) {
			assert.equal((await call(token, method, path, { text: "x" })).body.error?.code, "share_scope", path);
		}
		const current = await call(token, "GET", "/api/pi/shares/current");
		assert.deepEqual([current.body.id, current.body.sessionId, current.body.mode], [id, a, "view"]);
	});

	test("a control token acts on its session only: no terminal, no other session, no list, no accounts", async () => {
		const made = await share(a, { mode: "control" });
		const token = made.body.token as string;
		const renamed = await call(token, "PATCH", `/api/pi/sessions/${a}`, { name: "shared run" });
		assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
		assert.equal((await call(token, "PUT", `/api/pi/sessions/${a}/editor`, { text: "draft" })).status, 200);
		for (const [method, path] of [
			["POST", `/api/pi/sessions/${a}/prompt`],
			["POST", `/api/pi/sessions/${a}/steer`],
			["POST", `/api/pi/sessions/${a}/dialogs/r1`],
			["POST", `/api/pi/sessions/${a}/changes/commit`],
			["GET", `/api/pi/sessions/${a}/files/list`],
			["GET", `/api/pi/sessions/${a}/mcp`],
			["GET", `/api/pi/models?session=${a}`],
		] as const) {
			const res = await call(token, method, path);
			assert.notEqual(res.body.error?.code, "share_scope", `${method} ${path}: ${JSON.stringify(res.body)}`);
			assert.notEqual(res.status, 401, path);
		}
		const excluded = /\/sessions\/[^/]+\/(terminals|copy|fork|share|shares)(\/|$)/;
		const allowedElsewhere = new Set(["GET /api/pi/tui-palette.css", "GET /api/pi/shares/current"]);
		// Every registered route elsewhere, and the excluded ones of its own session, are refused (or public).
		for (const session of [a, b]) {
			for (const { method, path, pattern } of registered(session)) {
				const key = `${method} ${path}`;
				const own = session === a && pattern.startsWith("/api/pi/sessions/:id");
				const excludedHere = excluded.test(path) || (method === "DELETE" && pattern === "/api/pi/sessions/:id");
				if ((own && !excludedHere) || allowedElsewhere.has(key)) continue;
				const res = await call(token, method, path);
				if (res.status === 403 && res.body.error?.code === "share_scope") continue;
				assert.ok(!own, `${key} must be refused to a control link`);
				const anonymous = await call(undefined, method, path);
				assert.notEqual(anonymous.status, 401, `${key} needs a sign-in, yet the control token got ${res.status}`);
				assert.equal(res.status, anonymous.status, `${key}: the token must add nothing to a public route`);
			}
		}
		for (const path of [
			"/api/pi/sessions",
			"/api/pi/providers",
			"/api/pi/grants",
			"/api/auth/credentials",
			"/api/pi/ui-settings",
			`/api/pi/sessions/${b}`,
		]) {
			assert.equal((await call(token, "GET", path)).body.error?.code, "share_scope", path);
		}
		assert.equal((await call(token, "POST", `/api/pi/sessions/${a}/share`, { mode: "view" })).status, 403);
		assert.equal((await call(token, "DELETE", `/api/pi/shares/${made.body.id}`)).status, 403);
		assert.equal((await call(token, "POST", "/api/auth/tokens", { name: "escalate" })).status, 403);
	});

	test("revoked links are refused and listed no more; revoking the credential that made a link ends it", async () => {
		const made = await share(a, { mode: "view" });
		const token = made.body.token as string;
		assert.equal((await call(token, "GET", `/api/pi/sessions/${a}`)).status, 200);
		assert.equal((await call(owner, "DELETE", `/api/pi/shares/${made.body.id}`)).status, 200);
		const after = await call(token, "GET", `/api/pi/sessions/${a}`);
		assert.equal(after.status, 401);
		assert.equal(after.body.error?.code, "share_revoked");
		assert.equal((await call(owner, "DELETE", `/api/pi/shares/${made.body.id}`)).status, 404, "once");
		const shares = (await call(owner, "GET", `/api/pi/sessions/${a}/shares`)).body.shares as { id: string }[];
		assert.ok(!shares.some((s) => s.id === made.body.id));

		const helper = built.auth.createDeviceToken("helper");
		const minted = await share(a, { mode: "control" }, helper.token);
		assert.equal(minted.status, 201);
		assert.equal(minted.body.mintedBy, helper.id);
		built.auth.revokeCredential(helper.id);
		const gone = await call(minted.body.token as string, "GET", `/api/pi/sessions/${a}`);
		assert.equal(gone.body.error?.code, "share_revoked");
	});
});

describe("share links on a real daemon: live, cut on revocation and expiry, guessing rate-limited", () => {
	const dir = tempDir("pier-share-serve-");
	let served: ServedChamber;
	let a: string;
	let b: string;

	before(async () => {
		const project = join(dir.path, "project");
		mkdirSync(project, { recursive: true });
		served = await servedChamber(["--no-examples", "--model", "pier/demo"], {
			agentDir: join(dir.path, "agent"),
			cwd: project,
			stateDir: join(dir.path, "state"),
		});
		a = (await served.api.newSession()).id;
		const other = await served.api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		b = other.body.session.id;
	});
	after(async () => {
		await served?.serve.stop();
		dir[Symbol.dispose]();
	});

	const link = async (mode: "view" | "control", ttlSeconds?: number) => {
		const made = await served.api.call<{ token: string; id: string }>("POST", `/api/pi/sessions/${a}/share`, {
			mode,
			...(ttlSeconds ? { ttlSeconds } : {}),
		});
		assert.equal(made.status, 201, JSON.stringify(made.body));
		const client = new ApiClient(served.serve.url);
		client.bearer = made.body.token;
		return { client, id: made.body.id, token: made.body.token };
	};

	test("a control link prompts; a view link's stream shows it live; revoking ends that stream", async () => {
		const viewer = await link("view");
		const controller = await link("control");
		const stream = viewer.client.events(`session=${a}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the viewer's snapshot");

		const prompted = await controller.client.call("POST", `/api/pi/sessions/${a}/prompt`, { text: "from a phone" });
		assert.equal(prompted.status, 202, JSON.stringify(prompted.body));
		await stream.waitFor(
			(e) => e.event === "transcript.row" && JSON.stringify(e.payload).includes("from a phone"),
			"the prompt's row on the view stream",
		);
		const elsewhere = await controller.client.call("POST", `/api/pi/sessions/${b}/prompt`, { text: "no" });
		assert.equal(elsewhere.status, 403);
		assert.equal((elsewhere.body as Body).error?.code, "share_scope");
		await stream.waitFor((e) => e.event === "agent.end", "the run's end");

		assert.equal((await served.api.call("DELETE", `/api/pi/shares/${viewer.id}`)).status, 200);
		const ended = await stream.waitFor((e) => e.event === "share.ended", "the stream's end event");
		assert.deepEqual(ended.payload, { shareId: viewer.id, reason: "revoked" });
		await new Promise<void>((done) => {
			const wait = () => (stream.closed ? done() : setImmediate(wait));
			wait();
		});
		const again = viewer.client.events(`session=${a}`);
		assert.equal(await again.ready, 401, "the page's reconnect is refused");
		again.close();
		// The control link is untouched by the view link's revocation.
		assert.equal((await controller.client.call("GET", `/api/pi/sessions/${a}`)).status, 200);
	});

	test("a link that expires ends its stream and is refused as expired", async () => {
		const short = await link("view", 1);
		const stream = short.client.events(`session=${a}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the snapshot");
		const ended = await stream.waitFor((e) => e.event === "share.ended", "the expiry's end event");
		assert.deepEqual(ended.payload, { shareId: short.id, reason: "expired" });
		const refused = await short.client.call("GET", `/api/pi/sessions/${a}`);
		assert.equal(refused.status, 401);
		assert.equal((refused.body as Body).error?.code, "share_expired");
	});

	test("guessing share tokens is rate-limited like logins, before any token is looked at", async () => {
		const valid = await link("view");
		const guesser = new ApiClient(served.serve.url);
		for (let i = 0; i < 5; i++) {
			guesser.bearer = `pier_sh_${"A".repeat(42)}${i}`;
			const res = await guesser.call("GET", `/api/pi/sessions/${a}`);
			assert.equal(res.status, 401, `guess ${i}`);
		}
		guesser.bearer = `pier_sh_${"B".repeat(43)}`;
		const blocked = await guesser.call("GET", `/api/pi/sessions/${a}`);
		assert.equal(blocked.status, 429);
		assert.equal((blocked.body as Body).error?.code, "rate_limited");
		assert.match(blocked.headers.get("retry-after") ?? "", /^\d+$/);
		// From that address even a real link waits: the limiter answers before the lookup.
		assert.equal((await valid.client.call("GET", `/api/pi/sessions/${a}`)).status, 429);
		// The owner's sign-in is not a share token and is not held up.
		assert.equal((await served.api.call("GET", "/api/pi/sessions")).status, 200);
	});
});
