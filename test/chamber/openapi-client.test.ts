/**
 * `pier/client` against a real `pier serve`, signed in with a device token only (Bearer): create a session,
 * prompt the offline demo model, follow the event stream to the run's end, read the rows back, and see the
 * daemon's errors arrive as typed `PierApiError`s. The typed calls below also check, at compile time, that the
 * client's types follow the document's schemas (`@ts-expect-error` lines fail the build if they stop erring).
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
	type AnyEvent,
	createClient,
	type PierClient,
	PierApiError,
	type SessionSummary,
	type TranscriptRow,
} from "../../src/client/index.js";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { OPERATIONS } from "../../src/chamber/openapi/operations.js";
import { API_VERSION, API_VERSION_HEADER } from "../../src/chamber/openapi/version.js";
import { EVENT_SCHEMAS } from "../../src/chamber/wire-events.js";
import { type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

describe("pier/client on a real pier serve", () => {
	const dir = tempDir("pier-client-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	let serve: Serve;
	let pier: PierClient;
	let token: string;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(project);
		const served = await servedChamber(["--no-examples", "--model", "pier/demo"], {
			agentDir,
			cwd: project,
			stateDir: join(dir.path, "state"),
		});
		serve = served.serve;
		// A script's credential: a device token minted by the signed-in browser, then only the token is used.
		const minted = await served.api.call<{ token: string }>("POST", "/api/auth/tokens", { name: "client test" });
		assert.equal(minted.status, 200, JSON.stringify(minted.body));
		token = minted.body.token;
		pier = createClient({ baseUrl: serve.url, token });
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	/** The document's schemas describe what the daemon really sends: each answer and event is checked against its own. */
	function conforms(schema: TSchema, value: unknown, what: string): void {
		const check = Compile(schema);
		if (check.Check(value)) return;
		const first = [...check.Errors(value)][0];
		assert.fail(`${what} does not match its schema: ${first?.instancePath} ${first?.message}`);
	}
	const answerOf = (route: keyof typeof OPERATIONS) => (OPERATIONS[route] as { response: TSchema }).response;

	/** Reads `events` until `until` matches one, keeping every event read. */
	async function readUntil(events: AsyncIterator<AnyEvent>, seen: AnyEvent[], until: (e: AnyEvent) => boolean) {
		for (;;) {
			const next = await events.next();
			if (next.done) throw new Error(`the stream ended; got ${seen.map((e) => e.event).join(" ")}`);
			seen.push(next.value);
			if (until(next.value)) return next.value;
		}
	}

	test("create a session, prompt the offline model, stream its events, read its rows", async () => {
		const created = await pier.request("POST /api/pi/sessions", { body: { cwd: project, name: "client" } });
		const session: SessionSummary = created.session;
		assert.equal(session.name, "client");
		await pier.request("POST /api/pi/sessions/:id/open", { params: { id: session.id } });

		const controller = new AbortController();
		const events = pier.events({ session: session.id, signal: controller.signal })[Symbol.asyncIterator]();
		const seen: AnyEvent[] = [];
		const snapshot = await readUntil(events, seen, (e) => e.event === "session.snapshot");
		assert.equal(snapshot.event === "session.snapshot" && snapshot.payload.session.id, session.id);

		const sent = await pier.request("POST /api/pi/sessions/:id/prompt", {
			params: { id: session.id },
			body: { text: "hello from pier/client" },
		});
		assert.deepEqual(sent, { ok: true });
		await readUntil(events, seen, (e) => e.event === "agent.end");
		const rowEvents = seen.flatMap((e) => (e.event === "transcript.row" ? [e.payload.row] : []));
		assert.ok(
			rowEvents.some((r) => r.kind === "user" && r.text === "hello from pier/client"),
			seen.map((e) => e.event).join(" "),
		);
		assert.ok(rowEvents.some((r) => r.kind === "assistant"));
		controller.abort();
		await events.return?.();

		const view = await pier.request("GET /api/pi/sessions/:id", { params: { id: session.id }, query: { rows: 10 } });
		const rows: TranscriptRow[] = view.rows;
		const user = rows.find((r) => r.kind === "user");
		assert.equal(user?.kind === "user" && user.text, "hello from pier/client");
		assert.ok(rows.some((r) => r.kind === "assistant"));
		assert.ok(view.seq > 0);
		const page = await pier.request("GET /api/pi/sessions/:id/rows", {
			params: { id: session.id },
			query: { limit: 1 },
		});
		assert.equal(page.rows.length, 1);
		assert.equal(page.olderRows, rows.length - 1);

		const listed = await pier.request("GET /api/pi/sessions");
		assert.ok(listed.sessions.some((s) => s.id === session.id && s.messageCount > 0));

		conforms(answerOf("POST /api/pi/sessions"), created, "POST /api/pi/sessions");
		conforms(answerOf("GET /api/pi/sessions/:id"), view, "GET /api/pi/sessions/:id");
		conforms(answerOf("GET /api/pi/sessions/:id/rows"), page, "GET /api/pi/sessions/:id/rows");
		conforms(answerOf("GET /api/pi/sessions"), listed, "GET /api/pi/sessions");
		const tree = await pier.request("GET /api/pi/sessions/:id/tree", { params: { id: session.id } });
		conforms(answerOf("GET /api/pi/sessions/:id/tree"), tree, "GET /api/pi/sessions/:id/tree");
		const models = await pier.request("GET /api/pi/models", { query: { session: session.id } });
		conforms(answerOf("GET /api/pi/models"), models, "GET /api/pi/models");
		for (const e of seen) conforms(EVENT_SCHEMAS[e.event], e.payload, `the ${e.event} event`);
		assert.ok(new Set(seen.map((e) => e.event)).size >= 6, seen.map((e) => e.event).join(" "));
	});

	test("events({since}) resumes a session's stream after an event: what followed it, no snapshot", async () => {
		// What `pier attach` reopens a broken stream with, so nothing is lost and nothing is drawn twice.
		const { session } = await pier.request("POST /api/pi/sessions", { body: { cwd: project } });
		await pier.request("POST /api/pi/sessions/:id/open", { params: { id: session.id } });
		const first = new AbortController();
		const events = pier.events({ session: session.id, signal: first.signal })[Symbol.asyncIterator]();
		const seen: AnyEvent[] = [];
		await readUntil(events, seen, (e) => e.event === "session.snapshot");
		await pier.request("POST /api/pi/sessions/:id/prompt", { params: { id: session.id }, body: { text: "resume" } });
		const user = await readUntil(events, seen, (e) => e.event === "transcript.row" && e.payload.row.kind === "user");
		const end = await readUntil(events, seen, (e) => e.event === "agent.end");
		first.abort();
		await events.return?.();

		const again = new AbortController();
		const resumed = pier.events({ session: session.id, since: user.seq, signal: again.signal })[Symbol.asyncIterator]();
		const replayed: AnyEvent[] = [];
		await readUntil(resumed, replayed, (e) => e.event === "agent.end");
		again.abort();
		await resumed.return?.();
		const numbered = replayed.filter((e) => e.event !== "heartbeat");
		assert.ok(!numbered.some((e) => e.event === "session.snapshot"), numbered.map((e) => e.event).join(" "));
		assert.deepEqual(
			numbered.map((e) => e.seq),
			seen.filter((e) => e.event !== "heartbeat" && e.seq > user.seq).map((e) => e.seq),
		);
		assert.equal(numbered.at(-1)?.seq, end.seq);
	});

	test("the session list's stream: a rename arrives as sessions.changed", async () => {
		const { session } = await pier.request("POST /api/pi/sessions", { body: { cwd: project } });
		const controller = new AbortController();
		const stream = pier.events({ signal: controller.signal });
		// The list's stream sends what happens after it is open: the rename comes once the daemon answered.
		await stream.opened;
		const events = stream[Symbol.asyncIterator]();
		const seen: AnyEvent[] = [];
		await pier.request("PATCH /api/pi/sessions/:id", { params: { id: session.id }, body: { name: "renamed" } });
		const changed = await readUntil(
			events,
			seen,
			(e) => e.event === "sessions.changed" && e.payload.id === session.id && e.payload.reason === "renamed",
		);
		assert.equal(changed.event === "sessions.changed" && changed.payload.session?.name, "renamed");
		controller.abort();
		await events.return?.();
	});

	test("errors are PierApiErrors with the server's code: bad body, unknown session, bad token, no daemon", async () => {
		const bad = await pier
			.request("POST /api/pi/sessions/:id/prompt", {
				params: { id: "nope" },
				// @ts-expect-error: the prompt's text must be a string (the client's type is the route's schema).
				body: { text: 42 },
			})
			.catch((e: unknown) => e);
		assert.ok(bad instanceof PierApiError);
		assert.equal(bad.status, 400);
		assert.equal(bad.code, "bad_request");
		assert.match(bad.message, /text/);

		const missing = await pier
			.request("GET /api/pi/sessions/:id", { params: { id: "no-such-session" } })
			.catch((e: unknown) => e);
		assert.ok(missing instanceof PierApiError);
		assert.equal(missing.status, 404);
		assert.equal(missing.code, "not_found");

		const stranger = createClient({ baseUrl: serve.url, token: "pier_dt_not-a-token" });
		const refused = await stranger.request("GET /api/pi/sessions").catch((e: unknown) => e);
		assert.ok(refused instanceof PierApiError);
		assert.equal(refused.status, 401);
		assert.equal(refused.code, "unauthorized");
		const refusedStream = stranger.events();
		const notOpened = await refusedStream.opened.catch((e: unknown) => e);
		assert.ok(notOpened instanceof PierApiError && notOpened.status === 401);
		const notRead = await refusedStream[Symbol.asyncIterator]()
			.next()
			.catch((e: unknown) => e);
		assert.ok(notRead instanceof PierApiError && notRead.code === "unauthorized");

		const nowhere = createClient({ baseUrl: "http://127.0.0.1:1", token });
		const down = await nowhere.request("GET /api/pi/sessions").catch((e: unknown) => e);
		assert.ok(down instanceof PierApiError);
		assert.equal(down.code, "network");

		// A path parameter left out is the caller's mistake, said before any request.
		// @ts-expect-error: `params.id` is required by the route's path.
		assert.throws(() => pier.request("GET /api/pi/sessions/:id", { params: {} }), /path parameter id is missing/);
	});

	test("the package exports it as pier/client", async () => {
		// A name in a variable: resolved by Node's package self-reference at run time, not by tsc before the build.
		const name = "pier/client";
		const mod = (await import(name)) as typeof import("../../src/client/index.js");
		assert.equal(typeof mod.createClient, "function");
		assert.equal(mod.PierApiError.name, "PierApiError");
	});

	test("the document and the version header, as a client sees them", async () => {
		const status = await pier.request("GET /api/auth/status");
		assert.equal(status.authenticated, true);
		conforms(answerOf("GET /api/auth/status"), status, "GET /api/auth/status");
		const credentials = await pier.request("GET /api/auth/credentials");
		conforms(answerOf("GET /api/auth/credentials"), credentials, "GET /api/auth/credentials");
		const tokens = await pier.request("GET /api/auth/tokens");
		assert.ok(tokens.tokens.some((t) => t.name === "client test"));
		conforms(answerOf("GET /api/auth/tokens"), tokens, "GET /api/auth/tokens");
		const doc = (await pier.request("GET /api/openapi.json")) as { info: { version: string } };
		assert.equal(doc.info.version, API_VERSION);
		const res = await fetch(new URL("/api/pi/sessions", serve.url), { headers: { authorization: `Bearer ${token}` } });
		assert.equal(res.headers.get(API_VERSION_HEADER), API_VERSION);
		const stream = await fetch(new URL("/api/pi/events", serve.url), { headers: { authorization: `Bearer ${token}` } });
		assert.equal(stream.headers.get(API_VERSION_HEADER), API_VERSION);
		await stream.body?.cancel();
	});
});
