/**
 * The chamber over HTTP: a real `pier serve` on loopback, the demo model, a real pi extension exercising
 * the extension UI, and the event stream read from a real socket.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Envelope, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/ui-ext.ts");
const QUICKJS_FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/quickjs-ui");
const PROCESS_FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/process-ui");

type View = {
	session: { id: string; name?: string };
	rows: { kind: string; id: string; [k: string]: unknown }[];
	ui: {
		statuses: Record<string, string>;
		widgets: Record<string, { lines: string[] }>;
		panels: { id?: string; props: { body?: string } }[];
		apps: { appId: string }[];
		dialogs: { requestId: string; method: string; fields?: unknown[]; expiresAt?: number }[];
		title?: string;
		editorText?: string;
	};
	commands: { name: string }[];
	seq: number;
};

describe("pier serve over HTTP", () => {
	const dir = tempDir("pier-chamber-");
	const agentDir = join(dir.path, "agent");
	const stateDir = join(dir.path, "state");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		// pi 1.6 keeps the recent turns whole: with a one-token budget, one earlier turn is enough to compact.
		mkdirSync(agentDir, { recursive: true });
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
		serve = await startServe(
			[
				"-e",
				FIXTURE,
				"-e",
				QUICKJS_FIXTURE,
				"-e",
				PROCESS_FIXTURE,
				"--state-dir",
				stateDir,
				"--ui-password",
				"hunter2",
			],
			{
				agentDir,
				cwd: dir.path,
			},
		);
		api = new ApiClient(serve.url);
		assert.equal((await api.login("hunter2")).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const newSession = () => api.newSession();

	async function run(id: string, command: string, args?: string) {
		const reply = await api.call("POST", `/api/pi/sessions/${id}/command`, { command, ...(args ? { args } : {}) });
		assert.equal(reply.status, 202, JSON.stringify(reply.body));
	}

	const view = async (id: string) => (await api.call<View>("GET", `/api/pi/sessions/${id}`)).body;
	const resultRow = (match: (content: Record<string, unknown>) => boolean) => (e: Envelope) => {
		const row = e.payload.row as { kind?: string; customType?: string; content?: Record<string, unknown> } | undefined;
		return e.event === "transcript.row" && row?.customType === "t.result" && match(row.content ?? {});
	};

	test("every API route and the event stream refuse a request without credentials", async () => {
		const anonymous = new ApiClient(serve.url);
		const routes: [string, string, unknown?][] = [
			["GET", "/api/pi/sessions"],
			["POST", "/api/pi/sessions", {}],
			["GET", "/api/pi/sessions/x"],
			["POST", "/api/pi/sessions/x/prompt", { text: "hi" }],
			["POST", "/api/pi/sessions/x/dialogs/y", { confirmed: true }],
			["GET", "/api/pi/models"],
			["GET", "/api/pi/extensions?session=x"],
			["GET", "/api/pi/ui-settings"],
			["POST", "/api/auth/tokens", { name: "x" }],
			["POST", "/api/auth/pairing-links", {}],
		];
		for (const [method, path, body] of routes) {
			const reply = await anonymous.call(method, path, body);
			assert.equal(reply.status, 401, `${method} ${path}`);
			assert.deepEqual(Object.keys((reply.body as { error: object }).error).sort(), ["code", "message"]);
		}
		const stream = anonymous.events("");
		assert.equal(await stream.ready, 401);
		stream.close();

		const forged = new ApiClient(serve.url);
		forged.cookie = "pier_session=not-a-session";
		assert.equal((await forged.call("GET", "/api/pi/sessions")).status, 401);
		forged.cookie = undefined;
		forged.bearer = "pier_dt_forged";
		assert.equal((await forged.call("GET", "/api/pi/sessions")).status, 401);
	});

	test("device tokens work until revoked; pairing links work once and expire", async () => {
		const made = await api.call<{ id: string; token: string }>("POST", "/api/auth/tokens", { name: "phone" });
		const device = new ApiClient(serve.url);
		device.bearer = made.body.token;
		assert.equal((await device.call("GET", "/api/pi/sessions")).status, 200);
		assert.equal((await api.call("DELETE", `/api/auth/tokens/${made.body.id}`)).status, 200);
		assert.equal((await device.call("GET", "/api/pi/sessions")).status, 401);

		const link = await api.call<{ token: string }>("POST", "/api/auth/pairing-links", { ttlSeconds: 60 });
		const phone = new ApiClient(serve.url);
		assert.equal((await phone.call("POST", "/api/auth/pair", { token: link.body.token })).status, 200);
		assert.equal((await phone.call("GET", "/api/pi/sessions")).status, 200);
		const again = await new ApiClient(serve.url).call("POST", "/api/auth/pair", { token: link.body.token });
		assert.equal(again.status, 401);

		const short = await api.call<{ token: string }>("POST", "/api/auth/pairing-links", { ttlSeconds: 1 });
		await new Promise((r) => setTimeout(r, 1100));
		const late = await new ApiClient(serve.url).call("POST", "/api/auth/pair", { token: short.body.token });
		assert.equal(late.status, 401);
	});

	test("a session's lifecycle with the demo model, streamed over SSE", async () => {
		const daemon = api.events("");
		assert.equal(await daemon.ready, 200);
		const { id, stream } = await newSession();
		await daemon.waitFor((e) => e.event === "sessions.changed" && e.payload.reason === "created", "created event");

		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "message.delta", "a streamed delta");
		const row = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"the assistant row",
		);
		const deltas = stream.events
			.filter((e) => e.event === "message.delta")
			.map((e) => e.payload.delta)
			.join("");
		assert.equal(deltas, (row.payload.row as { text: string }).text, "the deltas add up to the answer");
		assert.ok(deltas.includes("offline demo model"));
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "idle");
		// Per-session sequence numbers: 1, 2, 3… without gaps on a live stream.
		const seqs = stream.events.filter((e) => e.event !== "session.snapshot").map((e) => e.seq);
		for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1]! + 1);
		for (const e of stream.events) assert.equal(e.version, 1);

		// A tool call, through the demo model, shown with its result.
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: 'bash {"command":"echo tool-ok"}' });
		const tool = await stream.waitFor((e) => e.event === "tool.end", "the tool result");
		assert.match(String(tool.payload.text), /tool-ok/);

		const renamed = await api.call<{ session: { name: string } }>("PATCH", `/api/pi/sessions/${id}`, {
			name: "Lifecycle",
		});
		assert.equal(renamed.body.session.name, "Lifecycle");
		await daemon.waitFor((e) => e.event === "sessions.changed" && e.payload.reason === "renamed", "rename event");

		const hydrated = await view(id);
		assert.equal(hydrated.session.name, "Lifecycle");
		assert.deepEqual(
			hydrated.rows.filter((r) => r.kind === "user").map((r) => r.text),
			["hello", 'bash {"command":"echo tool-ok"}'],
		);
		assert.ok(hydrated.rows.some((r) => r.kind === "tool_result"));
		const listed = await api.call<{ sessions: { id: string }[] }>("GET", "/api/pi/sessions");
		assert.ok(listed.body.sessions.some((s) => s.id === id));

		const file = join(agentDir, "sessions");
		assert.ok(existsSync(file));
		assert.equal((await api.call("DELETE", `/api/pi/sessions/${id}`)).status, 200);
		await daemon.waitFor((e) => e.event === "sessions.changed" && e.payload.reason === "deleted", "delete event");
		assert.equal((await api.call("GET", `/api/pi/sessions/${id}`)).status, 404);
		const remaining = readdirSync(file, { recursive: true }).filter((f) => String(f).includes(id));
		assert.deepEqual(remaining, [], "the session file is gone");
		stream.close();
		daemon.close();
	});

	test("while the agent runs: a prompt is refused as busy; steer, follow-up and abort work", async () => {
		const { id, stream } = await newSession();
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: 't_wait {"ms":20000}' });
		await stream.waitFor((e) => e.event === "tool.start", "the running tool");
		const busy = await api.call<{ error: { code: string } }>("POST", `/api/pi/sessions/${id}/prompt`, { text: "x" });
		assert.equal(busy.status, 409);
		assert.equal(busy.body.error.code, "busy");
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/steer`, { text: "steered" })).status, 202);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/follow-up`, { text: "later" })).status, 202);
		const started = Date.now();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/abort`, {})).status, 200);
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "stopped");
		assert.ok(Date.now() - started < 10_000, "abort ended the 20 s tool early");

		const models = await api.call<{ models: { ref: string }[] }>("GET", "/api/pi/models");
		assert.ok(models.body.models.some((m) => m.ref === "pier/demo"));
		assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "pier/demo" })).status, 200);
		assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "nope/none" })).status, 422);
		assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/thinking`, { level: "ultra" })).status, 422);
		stream.close();
	});

	test("the chamber's own slash commands: /name, /model, /thinking, /compact", async () => {
		const { id, stream } = await newSession();
		const commands = (await view(id)).commands as unknown as { name: string; source: string }[];
		for (const name of ["new", "compact", "name", "model", "thinking"]) {
			assert.ok(
				commands.some((c) => c.name === name && c.source === "chamber"),
				name,
			);
		}
		const prompt = (text: string) =>
			api.call<{ error?: { message: string } }>("POST", `/api/pi/sessions/${id}/prompt`, { text });
		assert.equal((await prompt("/name Named by slash")).status, 202);
		assert.equal((await view(id)).session.name, "Named by slash");
		assert.equal((await prompt("/model pier/demo")).status, 202);
		const badModel = await prompt("/model nowhere/none");
		assert.equal(badModel.status, 422);
		assert.match(badModel.body.error!.message, /unknown model/);
		assert.equal((await prompt("/thinking")).status, 422);

		await prompt("hello");
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "an answer");
		await prompt("and again");
		const second = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { text?: string }).text === "and again",
			"the second prompt",
		);
		await stream.waitFor(
			(e) => e.event === "session.state" && e.payload.streaming === false && e.seq > second.seq,
			"the second answer",
		);
		assert.equal((await prompt("/compact keep it short")).status, 202);
		const compaction = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind?: string }).kind === "compaction",
			"the compaction summary",
		);
		const summary = compaction.payload.row as { summary: string; tokensBefore: number; tokensAfter?: number };
		assert.ok(summary.summary.length > 0);
		// The row says what the compaction freed: pi's tokensBefore, and its estimate of what it left.
		assert.ok(summary.tokensBefore > 0, JSON.stringify(summary));
		assert.ok(summary.tokensAfter !== undefined && summary.tokensAfter > 0, JSON.stringify(summary));
		assert.ok(summary.tokensAfter <= summary.tokensBefore + Math.ceil(summary.summary.length / 4));

		assert.equal((await prompt("/new")).status, 202);
		const moved = await stream.waitFor((e) => e.event === "session.replaced", "/new moves to a fresh session");
		assert.notEqual(moved.payload.id, id);
		assert.deepEqual((await view(String(moved.payload.id))).rows, [], "a fresh transcript");
		stream.close();
	});

	test("big transcripts page: the latest rows first, earlier pages on demand, snapshots too", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-rows", "25");
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { content?: { n?: number } }).content?.n === 25,
			"25 rows",
		);
		const all = (await view(id)).rows.map((r) => r.id);
		assert.equal(all.length, 25);
		const latest = await api.call<View & { olderRows?: number }>("GET", `/api/pi/sessions/${id}?rows=10`);
		assert.deepEqual(
			latest.body.rows.map((r) => r.id),
			all.slice(15),
		);
		assert.equal(latest.body.olderRows, 15);
		const page = await api.call<{ rows: { id: string }[]; olderRows: number }>(
			"GET",
			`/api/pi/sessions/${id}/rows?before=${all[15]}&limit=10`,
		);
		assert.deepEqual(
			page.body.rows.map((r) => r.id),
			all.slice(5, 15),
		);
		assert.equal(page.body.olderRows, 5);
		assert.equal((await api.call("GET", `/api/pi/sessions/${id}?rows=0`)).status, 400);
		assert.equal((await view(id)).rows.length, 25, "without rows=N, the whole transcript");

		const paged = api.events(`session=${id}&rows=3`);
		const snapshot = await paged.waitFor((e) => e.event === "session.snapshot", "a paged snapshot");
		assert.deepEqual(
			(snapshot.payload as unknown as View).rows.map((r) => r.id),
			all.slice(22),
		);
		assert.equal((snapshot.payload as unknown as { olderRows: number }).olderRows, 22);
		paged.close();
		stream.close();
	});

	test("an extension's ctx.newSession() moves the chamber session to the new pi session", async () => {
		const daemon = api.events("");
		assert.equal(await daemon.ready, 200);
		const { id, stream } = await newSession();
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "before the switch" });
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "an answer");
		await run(id, "t-new-session");
		const moved = await stream.waitFor((e) => e.event === "session.replaced", "where the session went");
		const next = String(moved.payload.id);
		assert.notEqual(next, id);
		await daemon.waitFor((e) => e.event === "sessions.changed" && e.payload.id === next, "the new session listed");

		const fresh = api.events(`session=${next}`);
		await fresh.waitFor((e) => e.event === "session.snapshot", "the new session's stream");
		await api.call("POST", `/api/pi/sessions/${next}/prompt`, { text: "after the switch" });
		await fresh.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"an answer in the new session",
		);
		const rowsNext = (await view(next)).rows.filter((r) => r.kind === "user").map((r) => r.text);
		assert.deepEqual(rowsNext, ["after the switch"], "a fresh transcript");
		const rowsOld = (await view(id)).rows.filter((r) => r.kind === "user").map((r) => r.text);
		assert.deepEqual(rowsOld, ["before the switch"], "the old session is still there, from its file");
		fresh.close();
		stream.close();
		daemon.close();
	});

	test("bodies are validated and errors are JSON with a code", async () => {
		const { id, stream } = await newSession();
		const bad = await api.call<{ error: { code: string; message: string } }>("POST", `/api/pi/sessions/${id}/prompt`, {
			text: 5,
		});
		assert.equal(bad.status, 400);
		assert.equal(bad.body.error.code, "bad_request");
		assert.match(bad.body.error.message, /text/);
		const extra = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "x", evil: true });
		assert.equal(extra.status, 400);
		const notJson = await fetch(new URL(`/api/pi/sessions/${id}/prompt`, serve.url), {
			method: "POST",
			headers: api.headers({ "content-type": "text/plain" }),
			body: "hi",
		});
		assert.equal(notJson.status, 415);
		const nowhere = await api.call<{ error: { message: string } }>("POST", "/api/pi/sessions", { cwd: "/no/such/dir" });
		assert.equal(nowhere.status, 422);
		assert.match(nowhere.body.error.message, /not a directory/);
		const missing = await api.call<{ error: { code: string } }>("GET", "/api/pi/sessions/does-not-exist");
		assert.equal(missing.status, 404);
		assert.equal(missing.body.error.code, "not_found");
		stream.close();
	});

	test("commands: only registered names that match the pattern run", async () => {
		const { id, stream } = await newSession();
		for (const name of ["../etc", "a/b", "-x", "x".repeat(129), ""]) {
			const reply = await api.call<{ error: { code: string } }>("POST", `/api/pi/sessions/${id}/command`, {
				command: name,
			});
			assert.equal(reply.status, 422, name);
			assert.equal(reply.body.error.code, "bad_command");
		}
		const unknown = await api.call<{ error: { code: string } }>("POST", `/api/pi/sessions/${id}/command`, {
			command: "no-such-command",
		});
		assert.equal(unknown.status, 404);
		assert.equal(unknown.body.error.code, "unknown_command");
		const extensions = await api.call<{ extensions: { id: string; commands: string[] }[] }>(
			"GET",
			`/api/pi/extensions?session=${id}`,
		);
		assert.ok(extensions.body.extensions.some((e) => e.commands.includes("t-panel")));
		const raw = JSON.stringify(extensions.body);
		assert.ok(!raw.includes(REPO_ROOT) && !raw.includes("/"), `no server paths: ${raw}`);
		stream.close();
	});

	test("cards, live panels, apps and the sendMessage card", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-panel", "jobs first");
		await stream.waitFor((e) => e.event === "extension.ui" && e.payload.id === "jobs", "panel event");
		await run(id, "t-panel", "jobs second");
		await stream.waitFor(
			(e) => e.event === "extension.ui" && (e.payload.card as { props: { body: string } })?.props.body === "second",
			"panel update",
		);
		let state = await view(id);
		assert.deepEqual(
			state.ui.panels.map((p) => [p.id, p.props.body]),
			[["jobs", "second"]],
			"the latest descriptor wins",
		);
		assert.equal(state.rows.filter((r) => r.kind === "card").length, 2, "the transcript keeps the history");

		await run(id, "t-message-card");
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { source?: string }).source === "message",
			"the message card",
		);
		state = await view(id);
		assert.ok(!state.ui.panels.some((p) => p.id === "msgcard"), "a custom message never updates the dock");

		await run(id, "t-panel-remove", "jobs");
		await stream.waitFor((e) => e.event === "extension.ui" && e.payload.removed === true, "removal");
		assert.deepEqual((await view(id)).ui.panels, []);

		await run(id, "t-app", "board 300");
		await stream.waitFor((e) => e.event === "extension.app" && e.payload.appId === "board", "app event");
		assert.deepEqual(
			(await view(id)).ui.apps.map((a) => a.appId),
			["board"],
		);
		stream.close();
	});

	test("limits, each just past its bound", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-panels", "25");
		const refused = await stream.waitFor((e) => e.event === "extension.error", "the 25th panel refused");
		assert.match(String(refused.payload.message), /at most 24 panels/);
		assert.equal((await view(id)).ui.panels.length, 24);

		await run(id, "t-apps", "9");
		await stream.waitFor(
			(e) => e.event === "extension.error" && /at most 8 apps/.test(String(e.payload.message)),
			"9th app",
		);
		assert.equal((await view(id)).ui.apps.length, 8);

		await run(id, "t-app", "a1 200000");
		await stream.waitFor(
			(e) => e.event === "extension.app" && (e.payload.app as { html: string })?.html.length === 200_000,
			"200,000 chars fit",
		);
		await run(id, "t-app", "a2 200001");
		await stream.waitFor(
			(e) => e.event === "extension.error" && /200000|200,000/.test(String(e.payload.message)),
			"200,001 refused",
		);

		await run(id, "t-status-long");
		await run(id, "t-widget", "101");
		await stream.waitFor((e) => e.event === "extension.widget", "widget");
		const state = await view(id);
		assert.equal(state.ui.statuses.long?.length, 1000);
		assert.equal(state.ui.widgets.w?.lines.length, 100);
		assert.equal(state.ui.widgets.w?.lines[0]?.length, 2000);

		await run(id, "t-big-cards");
		await stream.waitFor(
			(e) =>
				e.event === "transcript.row" &&
				(e.payload.row as { card?: { component?: string } }).card?.component === "markdown",
			"the big cards",
		);
		type Card = {
			id?: string;
			title?: string;
			component: string;
			props: { items?: unknown[]; rows?: unknown[][]; body?: string };
			actions: { label: string; args?: string; icon?: string; confirm?: string }[];
		};
		const cards = (await view(id)).rows.filter((r) => r.kind === "card").map((r) => r.card as Card);
		const [badges, table, markdown] = cards.slice(-3) as [Card, Card, Card];
		assert.equal(badges.id?.length, 128, "card id ≤ 128");
		assert.equal(badges.title?.length, 256, "title ≤ 256");
		assert.equal(badges.props.items?.length, 24, "badges ≤ 24");
		assert.equal(badges.actions.length, 8, "actions ≤ 8");
		const first = badges.actions[0]!;
		assert.equal(first.label.length, 128, "action label ≤ 128");
		assert.equal(first.args?.length, 2000, "args ≤ 2,000");
		assert.ok(!first.args?.includes("\u0007"), "control characters stripped");
		assert.equal(first.icon, undefined, "an icon over 64 characters is dropped");
		assert.equal(first.confirm?.length, 500, "confirm ≤ 500");
		assert.equal(table.props.rows?.length, 200, "table rows ≤ 200");
		assert.deepEqual(table.props.rows?.[0], ["r0", "b"], "cells cut to the column count");
		assert.equal(markdown.props.body?.length, 50_000, "messages ≤ 50,000");

		await run(id, "t-form-options");
		await stream.waitFor(
			(e) =>
				e.event === "extension.error" &&
				/20/.test(String(e.payload.message)) &&
				/option/.test(String(e.payload.message)),
			"21 options refused",
		);

		await run(id, "t-form-big");
		const formError = await stream.waitFor(
			(e) =>
				e.event === "extension.error" &&
				/form/.test(String(e.payload.message)) &&
				/field/.test(String(e.payload.message)) &&
				!/option/.test(String(e.payload.message)),
			"13 form fields refused",
		);
		assert.match(String(formError.payload.message), /12/);
		assert.deepEqual((await view(id)).ui.dialogs, [], "no half-valid form reached the user");
		stream.close();
	});

	test("dialogs: a form answered (and a bad answer refused), a confirm, a select, a timeout", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-form");
		const dialog = await stream.waitFor((e) => e.event === "extension.dialog", "the form");
		const requestId = String(dialog.payload.requestId);
		assert.equal((await view(id)).ui.dialogs[0]?.requestId, requestId, "pending dialogs are in the snapshot");
		const answer = (body: unknown) =>
			api.call<{ error?: { code: string; message: string } }>(
				"POST",
				`/api/pi/sessions/${id}/dialogs/${requestId}`,
				body,
			);
		for (const [values, why] of [
			[{ count: "2" }, /name/],
			[{ name: "x", count: "6" }, /count/],
			[{ name: "x", level: "medium" }, /level/],
			[{ name: "x", dry: "yes" }, /dry/],
			[{ name: "x", extra: "1" }, /extra/],
		] as const) {
			const reply = await answer({ values });
			assert.equal(reply.status, 422, JSON.stringify(values));
			assert.equal(reply.body.error?.code, "invalid_answer");
			assert.match(reply.body.error!.message, why);
		}
		assert.equal((await answer({ confirmed: true })).status, 422, "the wrong kind of answer");
		assert.equal((await answer({ values: { name: "Ada", count: "3", level: "high", dry: "true" } })).status, 200);
		const got = await stream.waitFor(
			resultRow((c) => "form" in c),
			"the form result",
		);
		assert.deepEqual((got.payload.row as { content: unknown }).content, {
			form: { name: "Ada", count: "3", level: "high", dry: "true" },
		});
		await stream.waitFor((e) => e.event === "extension.dialog.dismiss" && e.payload.reason === "answered", "dismiss");
		assert.equal((await answer({ values: { name: "again" } })).status, 404, "answered once");

		await run(id, "t-confirm");
		const confirm = await stream.waitFor(
			(e) => e.event === "extension.dialog" && e.payload.method === "confirm",
			"confirm",
		);
		await api.call("POST", `/api/pi/sessions/${id}/dialogs/${confirm.payload.requestId}`, { confirmed: true });
		await stream.waitFor(
			resultRow((c) => c.confirmed === true),
			"confirmed",
		);

		await run(id, "t-select");
		const select = await stream.waitFor(
			(e) => e.event === "extension.dialog" && e.payload.method === "select",
			"select",
		);
		const path = `/api/pi/sessions/${id}/dialogs/${select.payload.requestId}`;
		assert.equal((await api.call("POST", path, { value: "blue" })).status, 422);
		await api.call("POST", path, { value: "green" });
		await stream.waitFor(
			resultRow((c) => c.selected === "green"),
			"selected",
		);

		await run(id, "t-input");
		const input = await stream.waitFor((e) => e.event === "extension.dialog" && e.payload.method === "input", "input");
		await api.call("POST", `/api/pi/sessions/${id}/dialogs/${input.payload.requestId}`, { cancelled: true });
		await stream.waitFor(
			resultRow((c) => c.input === null),
			"cancelled input",
		);

		await run(id, "t-confirm", "300");
		const timed = await stream.waitFor(
			(e) => e.event === "extension.dialog" && e.payload.method === "confirm" && e.payload.timeoutMs === 300,
			"timed confirm",
		);
		assert.ok(Number(timed.payload.expiresAt) > Date.now() - 1000);
		await stream.waitFor((e) => e.event === "extension.dialog.dismiss" && e.payload.reason === "timeout", "timeout");
		await stream.waitFor(
			resultRow((c) => c.confirmed === false),
			"a timed-out confirm is a no",
		);
		stream.close();
	});

	test("an unanswered dialog leaves a row (timed out, cancelled); a waiting session is marked in the list", async () => {
		const { id, stream } = await newSession();
		const listed = async () =>
			(await api.call<{ sessions: { id: string; waiting?: number }[] }>("GET", "/api/pi/sessions")).body.sessions.find(
				(s) => s.id === id,
			);
		const dialogRow = (reason: string) => (e: Envelope) => {
			const row = e.payload.row as { kind?: string; reason?: string } | undefined;
			return e.event === "transcript.row" && row?.kind === "dialog" && row.reason === reason;
		};
		assert.equal((await listed())?.waiting, undefined, "nothing waits yet");
		const daemon = api.events("");
		const listEvent = (waiting: number | undefined) => (e: Envelope) =>
			e.event === "sessions.changed" &&
			e.payload.id === id &&
			(e.payload.session as { waiting?: number } | undefined)?.waiting === waiting;

		await run(id, "t-confirm", "400");
		await stream.waitFor((e) => e.event === "extension.dialog", "the timed confirm");
		await daemon.waitFor(listEvent(1), "the daemon stream marking the session waiting");
		assert.equal((await listed())?.waiting, 1, "the list counts the pending dialog");
		const timedOut = await stream.waitFor(dialogRow("timeout"), "the timed-out dialog's row");
		assert.deepEqual(
			{ ...(timedOut.payload.row as Record<string, unknown>), id: "", timestamp: 0 },
			{ kind: "dialog", id: "", method: "confirm", title: "Sure?", reason: "timeout", timestamp: 0 },
		);
		assert.equal((await listed())?.waiting, undefined, "no longer waiting");
		await daemon.waitFor(listEvent(undefined), "the daemon stream clearing the mark");
		daemon.close();

		await run(id, "t-input");
		const input = await stream.waitFor((e) => e.event === "extension.dialog" && e.payload.method === "input", "input");
		await api.call("POST", `/api/pi/sessions/${id}/dialogs/${input.payload.requestId}`, { cancelled: true });
		await stream.waitFor(dialogRow("cancelled"), "the cancelled dialog's row");

		// An answered dialog leaves none; the rows are in the view (hydration) as well.
		await run(id, "t-select");
		const select = await stream.waitFor(
			(e) => e.event === "extension.dialog" && e.payload.method === "select",
			"select",
		);
		await api.call("POST", `/api/pi/sessions/${id}/dialogs/${select.payload.requestId}`, { value: "red" });
		await stream.waitFor(
			resultRow((c) => c.selected === "red"),
			"the answer",
		);
		const kinds = (await view(id)).rows.filter((r) => r.kind === "dialog").map((r) => `${r.method}:${r.reason}`);
		assert.deepEqual(kinds, ["confirm:timeout", "input:cancelled"]);
		stream.close();
	});

	test("a card, a live panel, a form and a dialog round trip from a QuickJS extension", async () => {
		const { id, stream } = await newSession();
		const qResult = (match: (content: Record<string, unknown>) => boolean) => (e: Envelope) => {
			const row = e.payload.row as { customType?: string; content?: Record<string, unknown> } | undefined;
			return e.event === "transcript.row" && row?.customType === "q.result" && match(row.content ?? {});
		};
		await run(id, "q-card");
		const card = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "card",
			"the QuickJS card",
		);
		const cardBody = (
			card.payload.row as {
				card: { component: string; props: { rows: { value: string }[] }; actions: { command: string; args: string }[] };
			}
		).card;
		assert.equal(cardBody.component, "kv");
		assert.equal(cardBody.props.rows[0]?.value, "rpc/true", "the guest sees the chamber as mode rpc with a UI");
		// The card's action runs its command through the prompt path, as the browser does.
		const action = cardBody.actions[0]!;
		await run(id, action.command, action.args);
		await stream.waitFor((e) => e.event === "extension.ui" && e.payload.id === "qjs-panel", "the panel");
		assert.deepEqual(
			(await view(id)).ui.panels.map((p) => [p.id, p.props.body]),
			[["qjs-panel", "from the card"]],
		);

		await run(id, "q-form");
		const form = await stream.waitFor((e) => e.event === "extension.dialog" && e.payload.method === "form", "the form");
		const path = `/api/pi/sessions/${id}/dialogs/${form.payload.requestId}`;
		assert.equal((await api.call("POST", path, { values: { city: "Oslo", days: "9" } })).status, 422);
		assert.equal((await api.call("POST", path, { values: { city: "Oslo", days: "3" } })).status, 200);
		const values = await stream.waitFor(
			qResult((c) => "form" in c),
			"the form's values in the guest",
		);
		assert.deepEqual((values.payload.row as { content: unknown }).content, { form: { city: "Oslo", days: "3" } });

		await run(id, "q-confirm");
		const confirm = await stream.waitFor(
			(e) => e.event === "extension.dialog" && e.payload.method === "confirm",
			"confirm",
		);
		await api.call("POST", `/api/pi/sessions/${id}/dialogs/${confirm.payload.requestId}`, { confirmed: true });
		await stream.waitFor(
			qResult((c) => c.confirmed === true),
			"the answer in the guest",
		);
		stream.close();
	});

	test("status, widget, title, notify and the editor text; state never leaks across sessions", async () => {
		const a = await newSession();
		const b = await newSession();
		await run(a.id, "t-status", "busy");
		await run(a.id, "t-title", "Session A");
		await run(a.id, "t-notify", "careful");
		await a.stream.waitFor((e) => e.event === "extension.notify" && e.payload.level === "warning", "notify");
		await api.call("PUT", `/api/pi/sessions/${a.id}/editor`, { text: "draft from the browser" });
		await run(a.id, "t-editor", "text from the extension");
		await a.stream.waitFor(
			resultRow((c) => c.before === "draft from the browser"),
			"getEditorText",
		);
		await a.stream.waitFor((e) => e.event === "extension.editor", "setEditorText");
		const stateA = await view(a.id);
		assert.equal(stateA.ui.statuses.t, "busy");
		assert.equal(stateA.ui.title, "Session A");
		assert.equal(stateA.ui.editorText, "text from the extension");
		const stateB = await view(b.id);
		assert.deepEqual(stateB.ui.statuses, { pichamber: "detected v1" }, "only B's own status");
		assert.equal(stateB.ui.title, undefined);
		assert.ok(!b.stream.events.some((e) => e.sessionId !== b.id), "B's stream carries only B's events");
		a.stream.close();
		b.stream.close();
	});

	test("extensions detect the chamber; a crashing process extension is an error row, not the end", async () => {
		const { id, stream } = await newSession();
		assert.equal((await view(id)).ui.statuses.pichamber, "detected v1", "in-process: globalThis.__PICHAMBER__");
		await run(id, "p-detect");
		await stream.waitFor((e) => e.event === "extension.status" && e.payload.key === "detect", "the process status");
		assert.equal((await view(id)).ui.statuses.detect, "PICHAMBER=1 mode=rpc hasUI=true");
		await run(id, "p-crash");
		const crash = await stream.waitFor(
			(e) => e.event === "extension.error" && /chamber-process-ui/.test(String(e.payload.message)),
			"the crash report",
		);
		assert.match(String(crash.payload.message), /going down|exit|crash/i);
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "still alive?" });
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"an answer after the crash",
		);
		stream.close();
	});

	test("project trust is asked, remembered and enforced", async () => {
		const project = join(dir.path, "project-with-extensions");
		mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "extensions", "marker.ts"),
			'export default function (pi) { pi.registerCommand("project-marker", { handler: async () => {} }); }\n',
		);
		const trust = await api.call<{ decided: boolean; hasProjectExtensions: boolean }>(
			"GET",
			`/api/pi/projects/trust?cwd=${encodeURIComponent(project)}`,
		);
		assert.deepEqual([trust.body.hasProjectExtensions, trust.body.decided], [true, false]);
		const asked = await api.call<{ error: { code: string } }>("POST", "/api/pi/sessions", { cwd: project });
		assert.equal(asked.status, 409);
		assert.equal(asked.body.error.code, "trust_required");

		const refused = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {
			cwd: project,
			approve: false,
		});
		assert.equal(refused.status, 201);
		assert.ok(!(await view(refused.body.session.id)).commands.some((c) => c.name === "project-marker"));

		await api.call("PUT", "/api/pi/projects/trust", { cwd: project, trusted: true });
		const trusted = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd: project });
		assert.equal(trusted.status, 201, "the stored decision answers the question");
		assert.ok((await view(trusted.body.session.id)).commands.some((c) => c.name === "project-marker"));
	});

	test("command triggers persist and may not take a built-in shortcut", async () => {
		const builtIn = await api.call<{ error: { message: string } }>("PUT", "/api/pi/ui-settings", {
			triggers: [{ id: "t1", command: "t-status", shortcut: "Escape" }],
		});
		assert.equal(builtIn.status, 422);
		assert.match(builtIn.body.error.message, /built-in/);
		const badName = await api.call("PUT", "/api/pi/ui-settings", { triggers: [{ id: "t1", command: "../x" }] });
		assert.equal(badName.status, 422);
		const tooMany = Array.from({ length: 33 }, (_, i) => ({ id: `t${i}`, command: "t-status" }));
		assert.equal((await api.call("PUT", "/api/pi/ui-settings", { triggers: tooMany })).status, 400);
		const good = {
			triggers: [{ id: "t1", command: "t-status", args: "busy", label: "Busy", shortcut: "Ctrl+Shift+B" }],
		};
		assert.equal((await api.call("PUT", "/api/pi/ui-settings", good)).status, 200);
		assert.deepEqual((await api.call("GET", "/api/pi/ui-settings")).body, good);
	});

	test("an extension error becomes an error row and the session goes on", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-throw");
		const error = await stream.waitFor((e) => e.event === "extension.error", "the error");
		assert.match(String(error.payload.message), /boom from t-throw/);
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "error",
			"the error row",
		);
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "still there?" });
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"an answer after the error",
		);
		assert.ok((await view(id)).rows.some((r) => r.kind === "error" && /boom/.test(String(r.message))));

		stream.close();
	});

	test("reconnect: a cursor in the window replays exactly what was missed; past it, a snapshot", async () => {
		const { id, stream } = await newSession();
		await run(id, "t-flood", "10");
		await stream.waitFor((e) => e.event === "extension.status" && e.payload.text === "9", "10 events");
		const seen = stream.events.filter((e) => e.event !== "session.snapshot");
		const cursor = seen[3]!.seq;
		const resumed = api.events(`session=${id}`, cursor);
		const latest = seen.at(-1)!.seq;
		await resumed.waitFor((e) => e.seq === latest, "the replay");
		assert.deepEqual(
			resumed.events.map((e) => [e.seq, e.event, e.payload]),
			seen.filter((e) => e.seq > cursor).map((e) => [e.seq, e.event, e.payload]),
		);
		resumed.close();

		// 1,100 more events: the window (1,024) no longer reaches back to the old cursor.
		await run(id, "t-flood", "1100");
		await stream.waitFor((e) => e.event === "extension.status" && e.payload.text === "1099", "1,100 events");
		const end = stream.events.at(-1)!.seq;
		const tooOld = api.events(`session=${id}`, cursor);
		const snapshot = await tooOld.waitFor(() => true, "first event");
		assert.equal(snapshot.event, "session.snapshot");
		assert.equal((snapshot.payload as unknown as View).ui.statuses.flood, "1099");
		tooOld.close();
		const edge = api.events(`session=${id}`, end - 1024);
		const first = await edge.waitFor(() => true, "first event");
		assert.equal(first.event, "extension.status", "exactly 1,024 back is still inside the window");
		assert.equal(first.seq, end - 1023);
		edge.close();
		const past = api.events(`session=${id}`, end - 1025);
		assert.equal((await past.waitFor(() => true, "first event")).event, "session.snapshot", "1,025 back is not");
		past.close();
		stream.close();
	});

	test("wrong passwords are rate limited", async () => {
		const guesser = new ApiClient(serve.url);
		for (let i = 0; i < 5; i++) assert.equal((await guesser.login(`guess${i}`)).status, 401);
		const blocked = await guesser.login("hunter2");
		assert.equal(blocked.status, 429);
		assert.ok(Number(blocked.headers.get("retry-after")) > 0);
	});
});

describe("pier serve start-up and restart", () => {
	test("a non-loopback address without a password is refused", async () => {
		using dir = tempDir();
		const result = await runPier(["serve", "--host", "0.0.0.0", "--port", "0"], { agentDir: dir.path });
		assert.equal(result.code, 2);
		assert.match(result.stderr, /--ui-password/);
	});

	test("a port in use is a clear error, not a stack trace", async () => {
		using dir = tempDir();
		const blocker = createServer();
		await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done));
		const { port } = blocker.address() as AddressInfo;
		try {
			const result = await runPier(["serve", "--port", String(port), "--state-dir", join(dir.path, "s")], {
				agentDir: dir.path,
			});
			assert.equal(result.code, 2);
			assert.match(result.stderr, new RegExp(`127\\.0\\.0\\.1:${port} is in use`));
			assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
		} finally {
			blocker.close();
		}
	});

	test("after a daemon restart, hydration shows the same panels", async () => {
		using dir = tempDir("pier-restart-");
		const agentDir = join(dir.path, "agent");
		const args = ["-e", FIXTURE, "--state-dir", join(dir.path, "state")];
		let serve = await startServe(args, { agentDir, cwd: dir.path });
		const api = new ApiClient(serve.url);
		await api.pair(serve.pairingUrl);
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		const id = created.body.session.id;
		const stream = api.events(`session=${id}`);
		// pi writes a session file once it has an answer.
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "the answer");
		for (const [command, args] of [
			["t-panel", "one first"],
			["t-panel", "two second"],
			["t-panel", "one updated"],
			["t-panel-remove", "two"],
			["t-app", "board 100"],
		]) {
			await api.call("POST", `/api/pi/sessions/${id}/command`, { command, args });
		}
		await stream.waitFor((e) => e.event === "extension.app", "the app");
		const before = (await api.call<View>("GET", `/api/pi/sessions/${id}`)).body;
		stream.close();
		assert.equal(await serve.stop(), 0, serve.output());

		serve = await startServe(args, { agentDir, cwd: dir.path });
		try {
			const again = new ApiClient(serve.url);
			again.cookie = api.cookie; // signed-in browsers stay signed in
			again.key = api.key;
			const after = await again.call<View>("GET", `/api/pi/sessions/${id}`);
			assert.equal(after.status, 200, JSON.stringify(after.body));
			assert.deepEqual(after.body.ui.panels, before.ui.panels);
			assert.deepEqual(
				after.body.ui.panels.map((p) => [p.id, p.props.body]),
				[["one", "updated"]],
			);
			assert.deepEqual(after.body.ui.apps, before.ui.apps);
			assert.deepEqual(
				after.body.rows.map((r) => r.id),
				before.rows.map((r) => r.id),
			);
		} finally {
			await serve.stop();
		}
	});
});
