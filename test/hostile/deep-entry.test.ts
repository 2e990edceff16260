/**
 * Finding 11: an `append_entry` nested ~8,000 levels passed validation; the session view then answered 500
 * (JSON.stringify overflowed the stack), its stream broke until restart, and the entry was silently not
 * saved. Now every inbound frame is held to 128 levels before it is parsed, an in-process extension's entry
 * to the chamber's 1,000 when it is recorded, and the session stays viewable.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { ENTRY_DEPTH, rowsOf } from "../../src/chamber/transcript.js";
import { ApiClient, type EventReader, type Serve, startServe } from "../helpers/chamber.js";
import { nested, processPackage, quickjsPackage, rawProcessSource } from "../helpers/hostile.js";
import { tempDir } from "../helpers/pier-cli.js";

/**
 * `/deep <n>` appends an entry "deep.<n>" whose data is <n> nested arrays; the frame around it (frame, request,
 * action) adds 3 levels, so n = 125 is a frame of exactly 128 levels and n = 126 one level past the limit.
 */
const PROCESS = rawProcessSource(
	["deep"],
	`const n = Number(args);
	const result = await ask((rid) => '{"type":"request","id":"' + rid + '","request":{"kind":"action","action":{"kind":"append_entry","customType":"deep.' + n + '","data":' + "[".repeat(n) + "]".repeat(n) + '}}}');
	answer(id, result.status);`,
);

const QUICKJS = `
export default function (pi) {
	pi.registerCommand("qdeep", {
		handler: async (args) => {
			const n = Number(args);
			const real = JSON.stringify;
			// QuickJS's own stringify would overflow on 8,000 levels: the frame is written by hand instead.
			JSON.stringify = (value) => real(value).replace('"DEEP"', "[".repeat(n) + "]".repeat(n));
			try { await pi.appendEntry("qdeep." + n, "DEEP"); } finally { JSON.stringify = real; }
		},
	});
}
`;

/** An in-process pi extension: it calls pi's appendEntry directly, where no frame limit applies. */
const IN_PROCESS = `
export default function (pi) {
	pi.registerCommand("ideep", {
		handler: async (args) => {
			const n = Number(args);
			let data = [];
			for (let i = 1; i < n; i++) data = [data];
			try {
				pi.appendEntry("ideep." + n, data);
				pi.appendEntry("ideep.result", { n, ok: true });
			} catch (error) {
				pi.appendEntry("ideep.result", { n, refused: String(error.message) });
			}
		},
	});
}
`;

type Row = { kind: string; customType?: string; content?: unknown; message?: string };

describe("finding 11: deep nesting in a session entry", () => {
	const dir = tempDir("pier-hostile-deep-");
	const agentDir = join(dir.path, "agent");
	const processExt = processPackage(dir.path, "deep-process", PROCESS, ["commands", "session_actions"]);
	const quickjsExt = quickjsPackage(dir.path, "deep-quickjs", QUICKJS, ["commands", "session_actions"]);
	const inProcess = join(dir.path, "in-process-deep.ts");
	writeFileSync(inProcess, IN_PROCESS);
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		serve = await startServe(
			[
				...["-e", processExt, "-e", quickjsExt, "-e", inProcess],
				...["--state-dir", join(dir.path, "state"), "--ui-password", "hunter2"],
			],
			{ agentDir, cwd: dir.path },
		);
		api = new ApiClient(serve.url);
		assert.equal((await api.login("hunter2")).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	/** A session that has an answer already, so pi writes each entry to its file as it is appended. */
	async function newSession(): Promise<{ id: string; stream: EventReader }> {
		const { id, stream } = await api.newSession();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "session.state" && e.payload.streaming === false, "idle");
		return { id, stream };
	}

	const command = async (id: string, name: string, args: string) => {
		const reply = await api.call("POST", `/api/pi/sessions/${id}/command`, { command: name, args });
		assert.equal(reply.status, 202, JSON.stringify(reply.body));
	};
	const rowEvent = (stream: EventReader, customType: string) =>
		stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as Row).customType === customType,
			`the row ${customType}`,
		);
	const crash = (stream: EventReader, id: string) =>
		stream.waitFor(
			(e) => e.event === "extension.error" && String(e.payload.message).includes(`extension ${id} crashed`),
			`the crash of ${id}`,
		);
	const view = (id: string) => api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`);
	const sessionFile = (id: string) => {
		const root = join(agentDir, "sessions");
		const name = readdirSync(root, { recursive: true }).find(
			(f) => String(f).includes(id) && String(f).endsWith(".jsonl"),
		);
		assert.ok(name, `the session file of ${id}`);
		return readFileSync(join(root, String(name)), "utf8");
	};

	/** The session answers its view and its stream still carries new events. */
	async function stillWorks(id: string, stream: EventReader, marker: string): Promise<void> {
		const reply = await view(id);
		assert.equal(reply.status, 200, JSON.stringify(reply.body).slice(0, 500));
		await command(id, "ideep", "3");
		await stream.waitFor(
			(e) =>
				e.event === "transcript.row" &&
				(e.payload.row as Row).customType === "ideep.result" &&
				e.seq > stream.events.findLast((x) => x.event === "extension.error")!.seq,
			`the stream after ${marker}`,
		);
		const fresh = api.events(`session=${id}`);
		await fresh.waitFor((e) => e.event === "session.snapshot", `a new stream's snapshot after ${marker}`);
		fresh.close();
	}

	for (const [extension, name] of [
		["deep-process", "deep"],
		["deep-quickjs", "qdeep"],
	] as const) {
		const prefix = name === "deep" ? "deep" : "qdeep";
		test(`${extension}: 8,000 levels refused at the frame, naming the extension and the limit`, async () => {
			const { id, stream } = await newSession();
			await command(id, name, "8000");
			const error = await crash(stream, extension);
			assert.match(
				String(error.payload.message),
				new RegExp(`extension ${extension} crashed: protocol violation: frame has JSON nesting deeper than 128 levels`),
			);
			await stillWorks(id, stream, "the refused entry");
			assert.ok(!(await view(id)).body.rows.some((r) => r.customType === `${prefix}.8000`));
			assert.doesNotMatch(sessionFile(id), new RegExp(`"${prefix}\\.8000"`));
			stream.close();
		});

		test(`${extension}: a frame of exactly 128 levels is saved; 129 is refused`, async () => {
			const { id, stream } = await newSession();
			await command(id, name, "125");
			const row = await rowEvent(stream, `${prefix}.125`);
			assert.deepEqual((row.payload.row as Row).content, JSON.parse(nested(125)));
			assert.ok((await view(id)).body.rows.some((r) => r.customType === `${prefix}.125`));
			assert.match(sessionFile(id), new RegExp(`"customType":"${prefix}\\.125"`));

			await command(id, name, "126");
			const error = await crash(stream, extension);
			assert.match(String(error.payload.message), /nesting deeper than 128 levels/);
			await stillWorks(id, stream, "the entry one level past");
			assert.doesNotMatch(sessionFile(id), new RegExp(`"${prefix}\\.126"`));
			stream.close();
		});
	}

	test("in-process pi extension: a deep entry is refused by the chamber; the session stays viewable", async () => {
		const { id, stream } = await newSession();
		await command(id, "ideep", "8000");
		const result = await rowEvent(stream, "ideep.result");
		assert.match(
			String((result.payload.row as { content: { refused?: string } }).content.refused),
			/a session entry with nesting deeper than 1000 levels was refused/,
		);
		const reported = await stream.waitFor((e) => e.event === "extension.error", "the chamber's report");
		assert.match(String(reported.payload.message), /nesting deeper than 1000 levels/);
		await stillWorks(id, stream, "the in-process entry");
		assert.ok(!(await view(id)).body.rows.some((r) => r.customType === "ideep.8000"));

		// The chamber's limit for in-process entries (trusted code, no frame in between) is 1,000 levels: just
		// at it the entry is saved, shown and streamed; one past it is refused.
		await command(id, "ideep", "1000");
		await rowEvent(stream, "ideep.1000");
		assert.match(sessionFile(id), /"customType":"ideep\.1000"/);
		assert.ok((await view(id)).body.rows.some((r) => r.customType === "ideep.1000"));
		await command(id, "ideep", "1001");
		await stream.waitFor(
			(e) =>
				e.event === "transcript.row" &&
				(e.payload.row as { content?: { n?: number; refused?: string } }).content?.n === 1001 &&
				/refused/.test(String((e.payload.row as { content: { refused?: string } }).content.refused)),
			"1,001 levels refused",
		);
		assert.doesNotMatch(sessionFile(id), /"ideep\.1001"/);
		assert.equal((await view(id)).status, 200);
		stream.close();
	});

	test("an over-deep entry already in a session file shows as an error row; the rows still serialize", () => {
		const entry = (id: string, depth: number) => {
			let data: unknown = [];
			for (let i = 1; i < depth; i++) data = [data];
			return { type: "custom", id, parentId: null, timestamp: "2026-01-01T00:00:00Z", customType: "x", data };
		};
		const rows = rowsOf([entry("a", ENTRY_DEPTH), entry("b", ENTRY_DEPTH + 1), entry("c", 8_000)] as SessionEntry[]);
		assert.deepEqual(
			rows.map((r) => r.kind),
			["custom", "error", "error"],
		);
		assert.match(
			(rows[2] as { message: string }).message,
			/custom entry "x" nests deeper than 1000 levels and is not shown/,
		);
		assert.doesNotThrow(() => JSON.stringify({ rows }));
	});
});
