/**
 * Finding 5: a QuickJS extension with `widget` ran the daemon out of memory (unique widget and status keys
 * were never capped: 210 MiB → 4.1 GiB in a minute), and 50,000 notifications made 60 MB of event stream in
 * 2 s. Against a real `pier serve`: the flood is refused beyond the caps and rates with an error the guest
 * sees, the daemon's RSS and the event stream stay bounded, and the daemon goes on answering. Then just past
 * each cap: the 33rd key of one extension and the 51st key of a session (from an in-process extension, which
 * calls ctx.ui directly) are refused, and a cleared key makes room.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { EXTENSION_UI_LIMITS } from "../../src/extensions/host/ui-budget.js";
import { SESSION_UI_LIMITS } from "../../src/chamber/ui/ui-limits.js";
import { ApiClient, type Envelope, type EventReader, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FLOOD = join(REPO_ROOT, "test/fixtures/hostile/ui-flood");
const IN_PROCESS = join(REPO_ROOT, "test/fixtures/hostile/ui-keys.ts");
const MiB = 1024 * 1024;

type Tally = { ok: number; refused: number; messages: string[] };
type View = { ui: { statuses: Record<string, string>; widgets: Record<string, unknown> } };

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

/** Counts the bytes of a session's event stream as they arrive on the socket. */
function streamBytes(url: URL, cookie: string): { bytes(): number; close(): void } {
	let bytes = 0;
	const req = request(url, { headers: { accept: "text/event-stream", cookie } }, (res) => {
		res.on("data", (chunk: Buffer) => {
			bytes += chunk.length;
		});
	});
	req.on("error", () => {});
	req.end();
	return { bytes: () => bytes, close: () => req.destroy() };
}

describe("a UI flood from a QuickJS extension against pier serve", () => {
	const dir = tempDir("pier-ui-flood-");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		serve = await startServe(
			["-e", FLOOD, "-e", IN_PROCESS, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		api = new ApiClient(serve.url);
		assert.equal((await api.login("pw")).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const newSession = () => api.newSession();
	const run = async (id: string, command: string, args?: string) => {
		const reply = await api.call("POST", `/api/pi/sessions/${id}/command`, { command, ...(args ? { args } : {}) });
		assert.equal(reply.status, 202, JSON.stringify(reply.body));
	};
	const resultOf = async <T>(stream: EventReader, customType: string, timeoutMs = 120_000): Promise<T> => {
		const row = await stream.waitFor(
			(e: Envelope) =>
				e.event === "transcript.row" && (e.payload.row as { customType?: string }).customType === customType,
			customType,
			timeoutMs,
		);
		return (row.payload.row as { content: T }).content;
	};
	const view = async (id: string) => (await api.call<View>("GET", `/api/pi/sessions/${id}`)).body;

	test("unique keys and 50,000 notifications: refused past the caps, RSS and stream bounded, daemon answering", async (t) => {
		const { id, stream } = await newSession();
		const pid = serve.process.pid!;
		const rssBefore = rssOf(pid);
		const counter = streamBytes(new URL(`/api/pi/events?session=${id}`, serve.url), api.cookie!);
		let rssPeak = rssBefore;
		const sampler = setInterval(() => {
			rssPeak = Math.max(rssPeak, rssOf(pid));
		}, 100);
		const started = Date.now();
		// 2,000 unique widgets of 100 lines × 1,000 characters: 200 MB the daemon used to keep.
		await run(id, "flood", JSON.stringify({ keys: 2000, notifications: 50_000, lines: 100, width: 1000 }));
		const result = await resultOf<{ widgets: Tally; statuses: Tally; notes: Tally }>(stream, "flood.result");
		const floodMs = Date.now() - started;
		clearInterval(sampler);
		const rssAfter = rssOf(pid);
		const bytes = counter.bytes();
		counter.close();
		t.diagnostic(
			`flood took ${floodMs} ms; RSS ${(rssBefore / MiB).toFixed(0)} → peak ${(rssPeak / MiB).toFixed(0)} → ` +
				`${(rssAfter / MiB).toFixed(0)} MiB; stream ${(bytes / MiB).toFixed(2)} MiB`,
		);
		t.diagnostic(`widgets ${JSON.stringify(result.widgets)}`);
		t.diagnostic(`statuses ${JSON.stringify(result.statuses)}`);
		t.diagnostic(`notifications ${JSON.stringify(result.notes)}`);

		// The excess is refused, and the guest is told why.
		assert.ok(result.widgets.ok <= EXTENSION_UI_LIMITS.widgetKeys, `${result.widgets.ok} widgets accepted`);
		assert.ok(result.statuses.ok <= EXTENSION_UI_LIMITS.statusKeys, `${result.statuses.ok} statuses accepted`);
		assert.equal(result.widgets.ok + result.widgets.refused, 2000);
		// 100 KB widgets meet the content rate before the key cap (the next test meets the cap itself).
		for (const tally of [result.widgets, result.statuses, result.notes]) {
			assert.ok(
				tally.messages.every((m) =>
					/^ui_request_failed: .*refused: extension ui-flood (exceeded|already holds)/.test(m),
				),
				tally.messages.join("\n"),
			);
		}
		assert.ok(result.notes.refused > 49_000, `${result.notes.refused} notifications refused`);
		assert.ok(
			result.notes.messages.some((m) =>
				/notification refused: extension ui-flood exceeded 10 notifications per second/.test(m),
			),
			result.notes.messages.join("\n"),
		);

		// The session view holds no more than the caps.
		const ui = (await view(id)).ui;
		assert.ok(
			Object.keys(ui.widgets).length <= EXTENSION_UI_LIMITS.widgetKeys,
			`${Object.keys(ui.widgets).length} widgets`,
		);
		assert.ok(
			Object.keys(ui.statuses).length <= SESSION_UI_LIMITS.statusKeys,
			`${Object.keys(ui.statuses).length} statuses`,
		);

		// Bounded memory and stream: far below the finding's 4.1 GiB and 60 MB.
		assert.ok(rssPeak < 1024 * MiB, `peak RSS ${(rssPeak / MiB).toFixed(0)} MiB`);
		assert.ok(rssAfter - rssBefore < 256 * MiB, `RSS grew by ${((rssAfter - rssBefore) / MiB).toFixed(0)} MiB`);
		assert.ok(bytes < 16 * MiB, `the event stream carried ${(bytes / MiB).toFixed(2)} MiB`);

		// The daemon still answers, and the session still runs.
		const answered = Date.now();
		assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
		assert.ok(Date.now() - answered < 5_000);
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "still there?" });
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"an answer after the flood",
		);
		stream.close();
	});

	test("just past the per-extension cap: the 33rd key is refused, a cleared key makes room", async () => {
		const { id, stream } = await newSession();
		const n = EXTENSION_UI_LIMITS.widgetKeys + 1;
		await run(id, "keys", String(n));
		const result = await resultOf<{ widget: string[]; status: string[]; replaced: { widget: string; status: string } }>(
			stream,
			"keys.result",
		);
		for (const kind of ["widget", "status"] as const) {
			assert.deepEqual(result[kind].slice(0, n - 1), Array(n - 1).fill("ok"), `the first ${n - 1} ${kind} keys`);
			assert.match(
				result[kind][n - 1]!,
				new RegExp(
					`^ui_request_failed: ${kind} "key-${n - 1}" refused: extension ui-flood already holds 32 ${kind} keys \\(the limit per extension\\)`,
				),
			);
			assert.equal(result.replaced[kind], "ok", `a new ${kind} key after clearing one`);
		}
		const ui = (await view(id)).ui;
		const own = (keys: string[]) => keys.filter((k) => k.startsWith("key-")).sort();
		assert.equal(own(Object.keys(ui.widgets)).length, EXTENSION_UI_LIMITS.widgetKeys);
		assert.ok(own(Object.keys(ui.widgets)).includes("key-new") && !own(Object.keys(ui.widgets)).includes("key-0"));
		assert.equal(own(Object.keys(ui.statuses)).length, EXTENSION_UI_LIMITS.statusKeys);
		stream.close();
	});

	test("just past the per-session cap: an in-process extension's 51st key is refused", async () => {
		const { id, stream } = await newSession();
		const held = Object.keys((await view(id)).ui.statuses).length; // none here: no extension sets one at start
		const n = SESSION_UI_LIMITS.statusKeys - held + 1;
		await run(id, "inproc-keys", String(n));
		const result = await resultOf<{ status: string[]; widget: string[] }>(stream, "inproc.result");
		assert.deepEqual(result.status.slice(0, n - 1), Array(n - 1).fill("ok"));
		assert.match(
			result.status[n - 1]!,
			/^ctx\.ui\.setStatus\("inproc-\d+"\) refused: this session already holds 50 status keys \(the limit per session\)/,
		);
		assert.match(result.widget[SESSION_UI_LIMITS.widgetKeys]!, /this session already holds 50 widget keys/);
		const ui = (await view(id)).ui;
		assert.equal(Object.keys(ui.statuses).length, SESSION_UI_LIMITS.statusKeys);
		assert.equal(Object.keys(ui.widgets).length, SESSION_UI_LIMITS.widgetKeys);

		// A protocol extension in the same session now meets the session's cap, as a failure it sees.
		await run(id, "keys", "1");
		const protocol = await resultOf<{ widget: string[]; status: string[] }>(stream, "keys.result");
		assert.match(
			protocol.status[0]!,
			/^ui_request_failed: ctx\.ui\.setStatus\("key-0"\) refused: this session already holds 50/,
		);

		// Notifications from in-process code are bounded per session too.
		await run(id, "inproc-notify", "1000");
		const notes = await stream.waitFor(
			(e) =>
				e.event === "transcript.row" &&
				(e.payload.row as { customType?: string; content?: { refused?: number } }).customType === "inproc.result" &&
				typeof (e.payload.row as { content: { refused?: number } }).content.refused === "number",
			"the notification tally",
		);
		const tally = (notes.payload.row as { content: { ok: number; refused: number; first: string } }).content;
		assert.ok(tally.ok <= SESSION_UI_LIMITS.notificationBurst + 5, `${tally.ok} notifications accepted`);
		assert.match(
			tally.first,
			/ctx\.ui\.notify refused: this session's extensions exceeded 20 notifications per second/,
		);
		stream.close();
	});
});
