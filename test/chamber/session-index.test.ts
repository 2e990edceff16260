/**
 * The chamber's session listing: the same answer as pi's `listAll` (every field the chamber lists), for
 * files pi wrote and files in other shapes, re-reading only the files that changed.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { SessionIndex, type StoredSession } from "../../src/chamber/session-index.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-session-index-");
after(() => dir[Symbol.dispose]());

function withAgentDir<T>(run: () => Promise<T>): Promise<T> {
	const previous = process.env.PI_CODING_AGENT_DIR;
	process.env.PI_CODING_AGENT_DIR = dir.path;
	return run().finally(() => {
		if (previous === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = previous;
	});
}

/** The fields the chamber lists, from pi's own listing. */
async function piListing(): Promise<StoredSession[]> {
	return (await SessionManager.listAll()).map((s) => ({
		path: s.path,
		id: s.id,
		cwd: s.cwd,
		...(s.name ? { name: s.name } : {}),
		created: s.created,
		modified: s.modified,
		messageCount: s.messageCount,
		firstMessage: s.firstMessage,
	}));
}

const usage = {
	input: 1,
	output: 1,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 2,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const assistant = (text: string, timestamp: number) => ({
	role: "assistant" as const,
	content: [{ type: "text" as const, text }],
	api: "openai-completions" as const,
	provider: "t",
	model: "m",
	usage,
	stopReason: "stop" as const,
	timestamp,
});

test("the index lists every field as pi's listAll does, for pi's files and other shapes", async () => {
	await withAgentDir(async () => {
		const sessions = join(dir.path, "sessions", "--shapes--");
		mkdirSync(sessions, { recursive: true });
		const cwd = join(dir.path, "shapes");
		const make = () => SessionManager.create(cwd, sessions);
		const t0 = Date.parse("2026-01-02T03:04:05.000Z");

		// pi's own writing: tool results, a custom entry, a name set then cleared, an empty first user message.
		const full = make();
		full.appendMessage({ role: "user", content: [{ type: "text", text: "" }], timestamp: t0 });
		full.appendMessage({
			role: "user",
			content: [
				{ type: "text", text: "real" },
				{ type: "text", text: "question" },
			],
			timestamp: t0 + 1,
		});
		full.appendMessage(assistant("answer", t0 + 5_000));
		full.appendMessage({
			role: "toolResult",
			toolCallId: "c",
			toolName: "read",
			content: [{ type: "text", text: "x" }],
			isError: false,
			timestamp: t0 + 9_999_999,
		});
		full.appendSessionInfo("first name");
		full.appendCustomEntry("x.y", { a: 1 });
		full.appendSessionInfo("   ");
		full.appendMessage({ role: "user", content: "a follow-up", timestamp: t0 + 50_000 });
		full.appendMessage(assistant("later", t0 + 60_000));
		const named = make();
		named.appendMessage({ role: "user", content: "a string prompt", timestamp: t0 + 2 });
		named.appendMessage(assistant("ok", t0 + 3));
		named.appendSessionInfo("  kept name  ");
		const assistantOnly = make();
		assistantOnly.appendMessage(assistant("alone", t0 + 7));
		const files = [full, named, assistantOnly].map((m) => m.getSessionFile()!);

		// Other shapes: keys reordered, a message without its own timestamp, a torn last line, blank lines,
		// a header only, a malformed line before the header, an older version, not a session at all.
		const text = readFileSync(files[0]!, "utf8");
		const [headerLine, ...lines] = text.trimEnd().split("\n");
		const header = JSON.parse(headerLine!) as Record<string, unknown>;
		const variant = (id: string, body: string[]) => {
			const file = join(sessions, `2026-01-02T03-04-05-000Z_${id}.jsonl`);
			writeFileSync(file, [JSON.stringify({ ...header, id }), ...body].join("\n"));
			return file;
		};
		variant(
			"reordered",
			lines.map((line) => {
				const { type, ...rest } = JSON.parse(line) as { type: string };
				return JSON.stringify({ ...rest, type });
			}),
		);
		variant(
			"no-message-time",
			lines.map((line) => {
				const entry = JSON.parse(line) as { message?: { timestamp?: number } };
				if (entry.message) delete entry.message.timestamp;
				return JSON.stringify(entry);
			}),
		);
		// Torn past the fields the listing reads from a line's start.
		variant("torn", [...lines, lines.find((l) => l.includes('"role":"toolResult"'))!.slice(0, 130)]);
		variant("blank-lines", ["", ...lines.flatMap((l) => [l, "  "]), ""]);
		variant("header-only", []);
		writeFileSync(join(sessions, "malformed-first.jsonl"), `{not json\n${text}`);
		writeFileSync(join(sessions, "older.jsonl"), text.replace('"version":3', '"version":2'));
		writeFileSync(join(sessions, "not-session.jsonl"), lines.join("\n"));
		writeFileSync(join(sessions, "empty.jsonl"), "");
		writeFileSync(join(sessions, "ignored.txt"), text);

		const expected = await piListing();
		assert.ok(expected.length >= 9, `pi lists ${expected.length}`);
		const index = new SessionIndex();
		assert.deepEqual(await index.listAll(), expected);
		assert.deepEqual(await index.listAll(), expected, "and again from what it kept");
		const byId = new Map(expected.map((s) => [s.id, s]));
		assert.equal(byId.get("torn")?.messageCount, byId.get(full.getSessionId())?.messageCount);
		assert.equal(byId.get(full.getSessionId())?.firstMessage, "real question");
		assert.equal(byId.get(named.getSessionId())?.name, "kept name");
		assert.equal(byId.get(assistantOnly.getSessionId())?.firstMessage, "(no messages)");
	});
});

test("only files that changed are read again; removed files leave the list", async () => {
	await withAgentDir(async () => {
		for (const project of ["alpha", "beta"]) {
			const cwd = join(dir.path, project);
			mkdirSync(cwd, { recursive: true });
			const run = await runPier(["run", "--cwd", cwd, `hello ${project}`], { agentDir: dir.path });
			assert.equal(run.code, 0, run.stderr);
		}
		const read: string[] = [];
		const index = new SessionIndex((path) => read.push(path));
		const ids = (list: { id: string }[]) => list.map((s) => s.id);
		assert.deepEqual(await index.listAll(), await piListing());
		const total = read.length;
		assert.ok(total >= 2, "every file read once");

		read.length = 0;
		await index.listAll();
		assert.deepEqual(read, [], "nothing changed: nothing read");

		const alpha = (await SessionManager.listAll()).find((s) => s.cwd.endsWith("alpha"))!;
		const again = await runPier(["run", "--cwd", join(dir.path, "alpha"), "--session", alpha.path, "more"], {
			agentDir: dir.path,
		});
		assert.equal(again.code, 0, again.stderr);
		read.length = 0;
		const afterAppend = await index.listAll();
		assert.deepEqual(read, [alpha.path], "only the appended file is read again");
		assert.equal(afterAppend.find((s) => s.id === alpha.id)?.messageCount, alpha.messageCount + 2);
		assert.deepEqual(afterAppend, await piListing(), "newest first, as pi");

		rmSync(alpha.path);
		assert.ok(!ids(await index.listAll()).includes(alpha.id), "a removed file leaves the list");
	});
});
