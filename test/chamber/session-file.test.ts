/**
 * A session file's view read lazily (message lines parsed only for the rows asked for) is the view pi's own
 * reading gives: the same branch, the same page of rows, the same counts, for pi's files and for files with
 * lines in other key orders, a torn last line and a line torn mid-file.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { viewOfFile } from "../../src/chamber/session-file.js";
import { entryFacts, pageOf, rowsOf, summaryOf } from "../../src/chamber/transcript.js";
import { SessionUi } from "../../src/chamber/ui/session-ui.js";
import { assistantUsages, otherUsages, usageOf } from "../../src/chamber/usage.js";

const root = mkdtempSync(join(tmpdir(), "pier-session-file-"));
after(() => rmSync(root, { recursive: true, force: true }));

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: Date.now() });
let answers = 0;
const assistant = (text: string) => ({
	role: "assistant" as const,
	content: [{ type: "text" as const, text }],
	api: "openai-completions" as const,
	provider: "test",
	model: "m",
	usage: {
		input: 10 + answers++,
		output: 1,
		cacheRead: 0,
		cacheWrite: 0,
		totalTokens: 2,
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
	},
	stopReason: "stop" as const,
	timestamp: Date.now(),
});

/** A pi session with a branch, panels, a name, a model change, a label and a custom message. */
function piSession(name: string): { file: string; forkPoint: string } {
	const manager = SessionManager.create(join(root, name), join(root, name, "sessions"));
	manager.appendMessage(user("first question"));
	const forkPoint = manager.appendMessage(assistant("first answer"));
	for (let i = 0; i < 40; i++) {
		manager.appendMessage(user(`abandoned ${i}`));
		manager.appendMessage(assistant(`abandoned answer ${i}`));
	}
	manager.branch(forkPoint);
	manager.appendSessionInfo("a named session");
	manager.appendModelChange("test", "m2");
	for (let i = 0; i < 60; i++) {
		manager.appendMessage(user(`question ${i}`));
		if (i % 10 === 0)
			manager.appendCustomEntry("pichamber.ui", {
				id: `p${i % 3}`,
				component: "markdown",
				props: { body: `panel ${i}` },
			});
		if (i % 15 === 0) manager.appendLabelChange(forkPoint, `label ${i}`);
		// pi 1.6's usage entries (a summary's, cache warming's): its footer adds them to the totals.
		if (i % 25 === 0)
			manager.appendUsage("summary", "test", "m2", {
				input: 100,
				output: 7,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 107,
				cost: { input: 0.5, output: 0.25, cacheRead: 0, cacheWrite: 0, total: 0.75 },
			});
		if (i % 20 === 0) manager.appendCustomMessageEntry("note", `note ${i}`, true);
		manager.appendMessage(assistant(`answer ${i}`));
	}
	const file = manager.getSessionFile();
	assert.ok(file);
	return { file, forkPoint };
}

/** What pi's own reading of the file gives, shaped as the chamber's view. */
function reference(file: string, page: { limit?: number; before?: string }) {
	const manager = SessionManager.open(file);
	const entries = manager.getEntries();
	const ui = new SessionUi(() => {});
	for (const e of entries) if (e.type === "custom") ui.applyEntry(e.customType, e.data, false);
	const header = manager.getHeader()!;
	return {
		...pageOf(rowsOf(manager.getBranch()), page),
		session: summaryOf(header, entryFacts(entries), {
			...(manager.getSessionName() ? { name: manager.getSessionName()! } : {}),
			live: false,
			streaming: false,
		}),
		ui: ui.view(),
		usage: usageOf(assistantUsages(entries), undefined, 0, otherUsages(entries)),
	};
}

function assertSameAsPi(file: string, page: { limit?: number; before?: string }) {
	const view = viewOfFile(file, page);
	assert.ok(view, `${file} reads as a session`);
	const expected = reference(file, page);
	assert.deepEqual(view.rows, expected.rows);
	assert.equal(view.olderRows, expected.olderRows);
	assert.deepEqual(view.session, expected.session);
	assert.deepEqual(view.ui, expected.ui);
	assert.deepEqual(view.usage, expected.usage);
}

describe("a session file read for its view", () => {
	const { file } = piSession("pi");
	const all = viewOfFile(file)!.rows;

	test("every page of a pi file is pi's branch, paged", () => {
		assert.ok(all.length > 120, `the branch has ${all.length} rows`);
		assert.equal(
			all.some((r) => r.kind === "user" && r.text.startsWith("abandoned")),
			false,
			"the abandoned branch is not shown",
		);
		for (const page of [{}, { limit: 1 }, { limit: 30 }, { limit: 10_000 }, { limit: 0 }]) assertSameAsPi(file, page);
		for (const at of [0, 1, 57, all.length - 1]) {
			assertSameAsPi(file, { limit: 20, before: all[at]!.id });
			assertSameAsPi(file, { before: all[at]!.id });
		}
		assertSameAsPi(file, { limit: 5, before: "no-such-row" });
	});

	test("the name, model, panels and message count come from the whole file, not the page", () => {
		const view = viewOfFile(file, { limit: 3 })!;
		assert.equal(view.session.name, "a named session");
		assert.equal(view.model, "test/m2");
		assert.equal(view.session.firstMessage, "first question");
		assert.equal(view.session.messageCount, 2 + 80 + 120);
		assert.equal(view.ui.panels.length, 3);
		// The answers' usage, and three usage entries of 107 tokens and $0.75 each: pi 1.6's footer sums both.
		const answers = usageOf(assistantUsages(SessionManager.open(file).getEntries()));
		assert.equal(view.usage.input + view.usage.output - (answers.input + answers.output), 3 * 107);
		assert.equal(view.usage.cost - answers.cost, 3 * 0.75);
	});

	test("lines in another key order are read in full, with the same result", () => {
		const reordered = join(root, "reordered.jsonl");
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const rewritten = lines.map((line, i) => {
			if (i === 0 || i % 3 !== 0) return line;
			const { type, ...rest } = JSON.parse(line) as { type: string };
			return JSON.stringify({ ...rest, type });
		});
		writeFileSync(reordered, `${rewritten.join("\n")}\n`);
		for (const page of [{}, { limit: 25 }]) assertSameAsPi(reordered, page);
	});

	test("a torn last line is skipped as pi skips it, whether or not it is on the page", () => {
		const torn = join(root, "torn.jsonl");
		const text = readFileSync(file, "utf8");
		const lastStart = text.trimEnd().lastIndexOf("\n") + 1;
		writeFileSync(torn, text.slice(0, lastStart + 120));
		for (const page of [{}, { limit: 1 }, { limit: 40 }]) assertSameAsPi(torn, page);
		assert.equal(viewOfFile(torn, { limit: 1 })!.rows.length, 1);
	});

	test("a line torn mid-file and glued to the next append leaves the same rows as pi's reading", () => {
		const glued = join(root, "glued.jsonl");
		const lines = readFileSync(file, "utf8").trimEnd().split("\n");
		const at = Math.floor(lines.length / 2);
		// A writer died mid-line; the next write began on the same line.
		lines.splice(at, 2, `${lines[at]!.slice(0, 90)}${lines[at + 1]}`);
		writeFileSync(glued, `${lines.join("\n")}\n`);
		for (const page of [{}, { limit: 10 }, { limit: 400 }]) {
			const view = viewOfFile(glued, page)!;
			const expected = reference(glued, page);
			assert.deepEqual(view.rows, expected.rows);
			assert.equal(view.olderRows, expected.olderRows);
		}
	});

	test("a hand-made file whose parents form a cycle is read, not followed forever", () => {
		const cyclic = join(root, "cyclic.jsonl");
		const header = { type: "session", version: 3, id: "c", timestamp: new Date().toISOString(), cwd: root };
		const entry = (id: string, parentId: string, text: string) =>
			JSON.stringify({ type: "message", id, parentId, timestamp: new Date().toISOString(), message: user(text) });
		writeFileSync(cyclic, [JSON.stringify(header), entry("a", "b", "one"), entry("b", "a", "two")].join("\n"));
		const view = viewOfFile(cyclic)!;
		assert.deepEqual(
			view.rows.map((r) => r.kind === "user" && r.text),
			["one", "two"],
			"the leaf and the parent before it; a parent after its child is not followed",
		);
	});

	test("pi 1.6's system messages are kept in the file but shown as no row, in pi's line shape or another", () => {
		const manager = SessionManager.create(join(root, "system"), join(root, "system", "sessions"));
		const system = (content: string) => ({ role: "system" as const, content, timestamp: Date.now() });
		manager.appendMessage(system(""));
		manager.appendMessage(user("asked"));
		manager.appendMessage(assistant("answered"));
		manager.appendMessage(system("a later instruction"));
		manager.appendMessage(user("asked again"));
		const withSystem = manager.getSessionFile()!;
		const reordered = join(root, "system-reordered.jsonl");
		const lines = readFileSync(withSystem, "utf8").trimEnd().split("\n");
		const rewritten = lines.map((line, i) => {
			if (i === 0) return line;
			const { type, ...rest } = JSON.parse(line) as { type: string };
			return JSON.stringify({ ...rest, type });
		});
		writeFileSync(reordered, `${rewritten.join("\n")}\n`);
		for (const file of [withSystem, reordered]) {
			const view = viewOfFile(file)!;
			assert.deepEqual(
				view.rows.map((r) => r.kind),
				["user", "assistant", "user"],
			);
			assert.equal(view.session.messageCount, 5, "pi's listing counts them");
			for (const page of [{}, { limit: 1 }, { limit: 2 }]) assertSameAsPi(file, page);
			assertSameAsPi(file, { limit: 5, before: view.rows[2]!.id });
		}
	});

	test("a file that is not a current pi session is not read as one", () => {
		const old = join(root, "old.jsonl");
		writeFileSync(old, `${JSON.stringify({ type: "session", version: 2, id: "x", timestamp: "t", cwd: root })}\n`);
		assert.equal(viewOfFile(old), undefined);
		const notSession = join(root, "other.jsonl");
		writeFileSync(notSession, '{"type":"message"}\n');
		assert.equal(viewOfFile(notSession), undefined);
	});
});
