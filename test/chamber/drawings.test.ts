/**
 * Rows an extension draws, over HTTP from a real `pier serve` (GET /api/pi/sessions/:id/drawings): pi's examples
 * message-renderer.ts, entry-renderer.ts and built-in-tool-renderer.ts drawn with pi's components; a protocol
 * extension's message renderer drawn after it answers (`transcript.drawn`); a renderer that throws, one that runs
 * 10 s on the daemon's thread and a protocol renderer past its invocation timeout each cost their own row only;
 * the query is checked.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { drawingsQuery } from "../../src/chamber/tui/drawings-route.js";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const PI_EXAMPLES = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions");
export const RENDERER_EXTENSIONS = [
	join(PI_EXAMPLES, "message-renderer.ts"),
	join(PI_EXAMPLES, "entry-renderer.ts"),
	join(PI_EXAMPLES, "built-in-tool-renderer.ts"),
	join(REPO_ROOT, "test/fixtures/chamber-web/renderer-faults.ts"),
	join(REPO_ROOT, "test/fixtures/process/kit-slow-renderer"),
];

type Row = { kind: string; id: string; customType?: string; drawn?: true; toolCalls?: { id: string; drawn?: true }[] };
type Drawing = { lines?: { text: string }[][]; error?: string; extension?: string; pending?: true };
type Answer = { width: number; expanded: boolean; drawings: Record<string, Drawing> };

const text = (d: Drawing | undefined) => (d?.lines ?? []).map((l) => l.map((s) => s.text).join("")).join("\n");

describe("drawings of rows an extension draws", () => {
	const dir = tempDir("pier-drawings-");
	const project = join(dir.path, "project");
	const agentDir = join(dir.path, "agent");
	let serve: Serve;
	let api: ApiClient;
	let id: string;
	let stream: EventReader;

	const draw = async (ids: string[], width = 80, expanded = false) =>
		api.call<Answer>(
			"GET",
			`/api/pi/sessions/${id}/drawings?rows=${ids.map(encodeURIComponent).join(",")}&width=${width}&expanded=${expanded ? 1 : 0}`,
		);
	/** Runs `/name args` and gives the custom row whose content has `shown`. */
	const command = async (name: string, args: string, shown = args) => {
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: name, args })).status, 202);
		const row = await stream.waitFor(
			(e) =>
				e.event === "transcript.row" &&
				(e.payload.row as Row).kind === "custom" &&
				JSON.stringify(e.payload.row).includes(shown),
			`the row of /${name} ${args}`,
		);
		return row.payload.row as Row;
	};

	before(async () => {
		mkdirSync(project, { recursive: true });
		mkdirSync(agentDir, { recursive: true });
		// The slow protocol renderer sleeps 10 s: past this invocation timeout.
		writeFileSync(
			join(agentDir, "settings.json"),
			JSON.stringify({ extensionHost: { timeouts: { invocationMs: 2_000 } } }),
		);
		({ serve, api } = await servedChamber(["--no-examples", ...RENDERER_EXTENSIONS.flatMap((e) => ["-e", e])], {
			agentDir,
			cwd: project,
			stateDir: join(dir.path, "state"),
		}));
		({ id, stream } = await api.newSession());
	});
	after(async () => {
		stream?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("the query is checked: rows, width and expanded", () => {
		assert.match((drawingsQuery({ width: "80" }) as { error: string }).error, /^rows:/);
		assert.match((drawingsQuery({ rows: "a", width: "x" }) as { error: string }).error, /^width:/);
		assert.match((drawingsQuery({ rows: "a", width: "80", expanded: "yes" }) as { error: string }).error, /^expanded:/);
		const many = Array.from({ length: 51 }, (_, i) => `r${i}`).join(",");
		assert.match((drawingsQuery({ rows: many, width: "80" }) as { error: string }).error, /at most 50/);
		assert.deepEqual(drawingsQuery({ rows: "a,b,a", width: "97", expanded: "1" }), {
			ids: ["a", "b"],
			width: 80,
			expanded: true,
		});
	});

	test("message-renderer.ts and entry-renderer.ts rows are marked and drawn by pi's components", async () => {
		const message = await command("status", "warn disk full", "disk full");
		assert.equal(message.drawn, true);
		const entry = await command("status-card", "hello");
		assert.equal(entry.drawn, true);
		const bad = await draw([message.id], 0);
		assert.equal(bad.status, 400);
		const { body } = await draw([message.id, entry.id], 97);
		assert.equal(body.width, 80);
		assert.match(text(body.drawings[message.id]), /\[WARN\] disk full/);
		// The level's colour is pi's theme token, named, so either palette colours it.
		assert.ok(body.drawings[message.id]!.lines!.flat().some((s) => (s as { fg?: string }).fg === "warning"));
		assert.match(text(body.drawings[entry.id]), /hello/);
		const expanded = await draw([message.id], 80, true);
		assert.match(text(expanded.body.drawings[message.id]), /at \d/);
	});

	test("built-in-tool-renderer.ts's write is drawn with its result; a result arriving says so", async () => {
		assert.equal(
			(
				await api.call("POST", `/api/pi/sessions/${id}/prompt`, {
					text: 'write {"path":"app.ts","content":"one\\ntwo\\n"}',
				})
			).status,
			202,
		);
		const drawn = await stream.waitFor((e) => e.event === "transcript.drawn", "the write call's drawing changed");
		const [key] = drawn.payload.ids as string[];
		assert.match(String(key), /^tool:/);
		await stream.waitFor((e) => e.event === "agent.end", "the answer");
		const rows = (await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`)).body.rows;
		const call = rows.flatMap((r) => r.toolCalls ?? []).find((c) => `tool:${c.id}` === key);
		assert.equal(call?.drawn, true);
		assert.ok(rows.some((r) => r.kind === "tool_result" && r.drawn));
		const { body } = await draw([String(key)]);
		assert.match(text(body.drawings[String(key)]), /write app\.ts/);
	});

	test("a throwing and a 10-second renderer each cost their row, named; neighbours still draw", async () => {
		const boom = await command("boom", "kaboom");
		const busy = await command("busy", "spinning");
		const fine = await command("status", "all fine");
		const { body } = await draw([boom.id, busy.id, fine.id]);
		assert.match(String(body.drawings[boom.id]?.error), /the boom renderer broke/);
		assert.match(String(body.drawings[boom.id]?.extension), /renderer-faults\.ts/);
		assert.match(String(body.drawings[busy.id]?.error), /took \d+\.\d s .* not asked again/);
		assert.match(String(body.drawings[busy.id]?.extension), /renderer-faults\.ts/);
		assert.match(text(body.drawings[fine.id]), /\[INFO\] all fine/);
		// Never called again for that row: at another width too, at once.
		const again = await draw([busy.id], 120);
		assert.match(String(again.body.drawings[busy.id]?.error), /not asked again/);
	});

	test("a protocol renderer is drawn once it answers; one past its invocation timeout costs its row", async () => {
		const quick = await command("proto-quick", "hi there");
		const slow = await command("proto-slow", "zzz");
		assert.equal(quick.drawn, true);
		const first = await draw([quick.id, slow.id]);
		assert.deepEqual(first.body.drawings[quick.id], { pending: true });
		assert.deepEqual(first.body.drawings[slow.id], { pending: true });
		await stream.waitFor(
			(e) => e.event === "transcript.drawn" && (e.payload.ids as string[]).includes(quick.id),
			"the quick renderer's answer",
		);
		assert.match(text((await draw([quick.id])).body.drawings[quick.id]), /PROTO hi there/);
		await stream.waitFor(
			(e) => e.event === "transcript.drawn" && (e.payload.ids as string[]).includes(slow.id),
			"the slow renderer's timeout",
		);
		const late = (await draw([slow.id, quick.id])).body.drawings;
		assert.match(String(late[slow.id]?.error), /did not answer within 2000 ms/);
		assert.equal(late[slow.id]?.extension, "kit-slow-renderer");
		assert.match(text(late[quick.id]), /PROTO hi there/);
	});
});
