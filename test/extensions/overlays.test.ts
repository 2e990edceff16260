import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import {
	type OverlayInputEvents,
	type OverlaySurface,
	type OverlayView,
	overlaySurfaceOf,
} from "../../src/extensions/bridge/overlays.js";
import {
	OVERLAY_MAX_ROW_CHARS,
	OVERLAY_MAX_ROWS,
	OVERLAY_STYLES,
	type OverlayRow,
	sanitizeOverlayRows,
} from "../../src/extensions/host/overlay-rows.js";
import { redactSecrets } from "../../src/extensions/host/redact.js";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage, scriptedSpec, testHost } from "../helpers/scripted.js";

const FIXTURE = join(REPO_ROOT, "test", "fixtures", "process", "overlay");
// Credential shapes built in pieces, so no scanner flags this file.
const GHP = ["gh", "p_", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghij"].join("");
const SK = ["s", "k-", "abcdefghijklmnop1234"].join("");
const AWS = ["AK", "IA", "0123456789ABCDEF"].join("");

async function overlayHost() {
	const { host, diagnostics } = testHost();
	const report = await host.load([scriptedSpec(FIXTURE)]);
	assert.deepEqual(report.failures, []);
	return { host, diagnostics };
}

describe("overlay rows (rpi's content contract)", () => {
	test("at most 100 rows and 200 characters a row: the 101st row and the 201st character go", () => {
		const rows = sanitizeOverlayRows(Array.from({ length: OVERLAY_MAX_ROWS + 1 }, (_, i) => `${i}`));
		assert.equal(rows.length, 100);
		assert.equal(rows.at(-1)!.text, "99");
		const [exact, over] = sanitizeOverlayRows(["a".repeat(200), "b".repeat(201)]);
		assert.equal(exact!.text.length, OVERLAY_MAX_ROW_CHARS);
		assert.equal(over!.text, "b".repeat(200));
		// Characters are code points: 201 emoji (402 UTF-16 units) keep 200 whole ones.
		const [emoji] = sanitizeOverlayRows(["😀".repeat(201)]);
		assert.equal(Array.from(emoji!.text).length, 200);
		assert.equal(emoji!.text, "😀".repeat(200));
	});

	test("styles outside rpi's eight are dropped, the row kept", () => {
		const rows = sanitizeOverlayRows([
			...OVERLAY_STYLES.map((style) => ({ text: style, style })),
			{ text: "blinking", style: "blink" },
			{ text: "plain" },
		]);
		assert.deepEqual(
			rows.slice(0, 8).map((r) => r.style),
			[...OVERLAY_STYLES],
		);
		assert.deepEqual(rows[8], { text: "blinking" });
		assert.deepEqual(rows[9], { text: "plain" });
	});

	test("credentials are redacted before the cut, so no prefix of one survives", () => {
		const text = `token=abc123 ${SK} ${GHP} ${AWS} Authorization: Bearer xyz789 password: hunter2`;
		const redacted = redactSecrets(text);
		for (const leaked of ["abc123", SK, GHP, AWS, "xyz789", "hunter2"]) assert.ok(!redacted.includes(leaked), redacted);
		assert.match(redacted, /\[REDACTED\]/);
		assert.equal(redactSecrets("plain text, no secrets"), "plain text, no secrets");
		// A key straddling the 200th character: redaction first, then the cut.
		const [row] = sanitizeOverlayRows([`${"x".repeat(190)} ${SK}`]);
		assert.ok(!row!.text.includes("sk-abc"), row!.text);
		assert.ok(Array.from(row!.text).length <= 200);
	});
});

describe("overlay invocations on a process extension written in JSONL", () => {
	test("registered overlays are listed; render answers are sanitized, with the opening draft", async () => {
		const { host } = await overlayHost();
		try {
			assert.deepEqual([...host.registry.overlays.keys()], ["chat", "big", "bare", "broken"]);
			const chat = host.registry.overlays.get("chat")!.descriptor;
			assert.deepEqual(chat, {
				id: "chat",
				title: "Side Chat",
				input: { placeholder: "Ask the side agent…", multiline: false },
			});
			const rendered = await host.invokeOverlayRender("chat");
			assert.deepEqual(rendered.rows.slice(0, 2), [
				{ text: "hello from overlay" },
				{ text: "styled row", style: "accent" },
			]);
			assert.equal(rendered.rows[2]!.style, "error");
			assert.ok(!rendered.rows[2]!.text.includes("ghp_"), rendered.rows[2]!.text);
			assert.match(rendered.rows[2]!.text, /^secret \[REDACTED\]$/);
			assert.deepEqual(rendered.rows[3], { text: "unknown style" });
			assert.deepEqual(rendered.input, { value: "initial draft" });
			const bare = await host.invokeOverlayRender("bare");
			assert.deepEqual(bare, { rows: [{ text: "nothing to do here" }] }); // a bare array: no input section
		} finally {
			await host.shutdown("test");
		}
	});

	test("a render one row and one character past the bounds comes back at the bounds", async () => {
		const { host } = await overlayHost();
		try {
			const { rows } = await host.invokeOverlayRender("big");
			assert.equal(rows.length, 100);
			assert.equal(rows[0]!.text, "y".repeat(200));
			assert.equal(rows[1]!.text, "x".repeat(200));
			assert.equal(rows.at(-1)!.text, "row-99");
		} finally {
			await host.shutdown("test");
		}
	});

	test("submit and key events reach the extension's callbacks; an overlay without them fails actionably", async () => {
		const { host } = await overlayHost();
		try {
			const text = `check ${GHP}`;
			// The user's own text is theirs: it reaches the extension as typed (rpi does not redact it either).
			assert.deepEqual(await host.invokeOverlayEvent("chat", { kind: "submit", text }), { submitted: text });
			for (const action of ["scroll_up", "abort", "toggle_mode"] as const) {
				assert.deepEqual(await host.invokeOverlayEvent("chat", { kind: "key", action }), { action });
			}
			await assert.rejects(host.invokeOverlayEvent("bare", { kind: "submit", text: "x" }), /no onSubmit callback/);
			await assert.rejects(
				host.invokeOverlayEvent("chat", { kind: "key", action: "ctrl+c" as never }),
				/unknown overlay key action "ctrl\+c"/,
			);
		} finally {
			await host.shutdown("test");
		}
	});

	test("unknown ids and malformed render answers fail with the overlay named; the extension stays alive", async () => {
		const { host } = await overlayHost();
		try {
			await assert.rejects(
				host.invokeOverlayRender("missing"),
				/unknown extension overlay "missing" \(registered: chat, big, bare, broken\)/,
			);
			await assert.rejects(
				host.invokeOverlayEvent("missing", { kind: "key", action: "home" }),
				/unknown extension overlay/,
			);
			await assert.rejects(
				host.invokeOverlayRender("broken"),
				/extension side-chat overlay "broken" returned invalid output: rows must be an array/,
			);
			assert.equal((await host.invokeOverlayRender("bare")).rows.length, 1);
		} finally {
			await host.shutdown("test");
		}
	});
});

test("overlay_set_rows and overlay_open need the overlay UI capability", async (t) => {
	using dir = tempDir();
	const { host } = testHost();
	t.after(() => host.shutdown("test end"));
	const asked: unknown[] = [];
	host.setRuntimeHost({
		hasUi: true,
		ui: async (request) => {
			asked.push(request);
			return { type: "acknowledged" };
		},
		action: async () => null,
	});
	const pkg = scriptedPackage(dir.path, "no-overlay-ui", {
		tools: ["ui"],
		hooks: [],
		capabilities: ["tools", "ui", "overlays"],
		uiCapabilities: ["notify"],
	});
	await host.load([scriptedSpec(pkg)]);
	for (const request of [
		{ type: "overlay_set_rows", id: "x", rows: ["r"] },
		{ type: "overlay_open", id: "x" },
	]) {
		const value = await host.invokeTool("ui", "c", { request });
		const answer = JSON.parse((value as { content: { text: string }[] }).content[0]!.text);
		assert.equal(answer.error.code, "permission_denied", JSON.stringify(answer));
		assert.match(
			answer.error.message,
			/UI capability "overlay" was not granted \(undeclared: add "overlay" to "uiCapabilities" in .*pi-extension\.json\)/,
		);
	}
	assert.deepEqual(asked, []);
});

test("json, print and rpc sessions have no overlay surface and say where overlays show", () => {
	assert.throws(
		() => overlaySurfaceOf({} as ExtensionUIContext, false),
		/overlays need the terminal or the chamber: this session has no overlay surface \(json, print or rpc mode\)/,
	);
	const own: OverlaySurface = () => ({ setRows() {}, setStatus() {}, restoreDraft() {}, close() {} });
	// A UI that brings its own surface (the chamber's) is used whatever hasUI says.
	assert.equal(typeof overlaySurfaceOf({ overlay: own } as unknown as ExtensionUIContext, false), "function");
});

describe("overlay registration", () => {
	const overlay = (extra: Record<string, unknown> = {}) => ({
		kind: "overlay",
		overlay: { id: "x", title: "X", ...extra },
	});

	async function loadWith(options: Parameters<typeof scriptedPackage>[2]) {
		using dir = tempDir();
		const { host } = testHost();
		const report = await host.load([
			scriptedSpec(scriptedPackage(dir.path, "ov", { tools: [], hooks: [], ...options })),
		]);
		await host.shutdown("test");
		return report;
	}

	test("needs the overlays capability", async () => {
		const report = await loadWith({ capabilities: ["commands"], register: [overlay()] });
		assert.equal(report.failures.length, 1);
		assert.match(
			report.failures[0]!.message,
			/registered overlay without the "overlays" capability \(undeclared: add "overlays" to "capabilities" in .*pi-extension\.json\)/,
		);
	});

	test("overlay_open and overlay_close are refused as hook names, as rpi does", async () => {
		for (const event of ["overlay_open", "overlay_close"]) {
			const report = await loadWith({
				capabilities: ["overlays", "event_hooks"],
				register: [overlay()],
				hooks: [event],
			});
			assert.equal(report.failures.length, 1, event);
			assert.match(report.failures[0]!.message, new RegExp(`unsupported extension event ${event}`));
			assert.match(report.failures[0]!.message, /overlay_open UI request/);
		}
	});

	test("title and placeholder: 256 characters load, 257 do not; ids follow the identifier rule", async () => {
		const ok = await loadWith({
			capabilities: ["overlays"],
			register: [overlay({ title: "t".repeat(256), input: { placeholder: "p".repeat(256) } })],
		});
		assert.deepEqual(ok.failures, []);
		const long = await loadWith({ capabilities: ["overlays"], register: [overlay({ title: "t".repeat(257) })] });
		assert.match(long.failures[0]!.message, /overlay title/);
		const placeholder = await loadWith({
			capabilities: ["overlays"],
			register: [overlay({ input: { placeholder: "p".repeat(257) } })],
		});
		assert.match(placeholder.failures[0]!.message, /overlay input placeholder/);
		const badId = await loadWith({ capabilities: ["overlays"], register: [overlay({ id: "has space" })] });
		assert.match(badId.failures[0]!.message, /overlay id/);
		const twice = await loadWith({ capabilities: ["overlays"], register: [overlay(), overlay()] });
		assert.match(twice.failures[0]!.message, /registered duplicate overlay "x"/);
	});
});

describe("overlays in a real pi session (a UI with its own overlay surface, as the chamber's)", () => {
	/** A surface that records what it is shown and lets the test act as the user. */
	function recordingSurface() {
		const shown: Array<{
			view: OverlayView;
			events: OverlayInputEvents;
			rows: OverlayRow[][];
			status: (string | undefined)[];
		}> = [];
		const notes: string[] = [];
		const surface: OverlaySurface = (view, events) => {
			const record = { view, events, rows: [] as OverlayRow[][], status: [] as (string | undefined)[] };
			shown.push(record);
			return {
				setRows: (rows) => record.rows.push(rows),
				setStatus: (text) => record.status.push(text),
				restoreDraft: () => {},
				close: () => {},
			};
		};
		const ui = {
			overlay: surface,
			notify: (message: string) => notes.push(message),
			setStatus: () => {},
			setWidget: () => {},
			onTerminalInput: () => () => {},
		} as unknown as ExtensionUIContext;
		return { ui, shown, notes };
	}

	const sessionWithFixture = (path: string, ui: ExtensionUIContext) =>
		createPierSession({
			cwd: path,
			agentDir: path,
			session: { kind: "memory" },
			extensionPaths: [FIXTURE],
			uiContext: ui,
		});

	const until = async (check: () => boolean, what: string) => {
		const deadline = Date.now() + 10_000;
		while (!check()) {
			if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
			await sleep(20);
		}
	};

	test("/overlay renders and opens; submit and keys go back; pushed rows reach the open overlay within bounds", async () => {
		using dir = tempDir();
		const { ui, shown, notes } = recordingSurface();
		const pier = await sessionWithFixture(dir.path, ui);
		try {
			await pier.session.prompt("/overlay chat");
			assert.equal(shown.length, 1, notes.join("\n"));
			const open = shown[0]!;
			assert.equal(open.view.title, "Side Chat");
			assert.equal(open.view.extensionId, "side-chat");
			assert.deepEqual(open.view.input, {
				placeholder: "Ask the side agent…",
				multiline: false,
				value: "initial draft",
			});
			assert.match(open.view.rows[2]!.text, /^secret \[REDACTED\]$/);
			open.events.submit("what is 2+2?");
			await until(() => open.rows.length > 0, "the rows the submit pushed");
			assert.deepEqual(open.rows.at(-1), [
				{ text: "hello from overlay", style: "bold" },
				{ text: "you said: what is 2+2?" },
				{ text: "side agent: 12 characters noted", style: "success" },
			]);
			open.events.key("scroll_down");
			await until(() => open.rows.length > 1, "the rows the key pushed");
			assert.deepEqual(open.rows.at(-1)!.at(-1), { text: "last key: scroll_down", style: "dim" });
			open.events.submit("fail please");
			await until(() => open.status.some((s) => s?.includes("unwell")), "the failed submit's status");
			assert.ok(open.status.includes("submit failed: the side agent is unwell"), open.status.join("|"));
			await pier.session.prompt("/side-flood");
			await until(() => open.rows.length > 2, "the flood");
			const flood = open.rows.at(-1)!;
			assert.equal(flood.length, 100);
			assert.ok(flood.every((row) => Array.from(row.text).length === 200));
		} finally {
			await pier.dispose();
		}
	});

	test("overlay_open from the extension shows its pushed rows with the registered title; others' overlays are refused", async () => {
		using dir = tempDir();
		const { ui, shown, notes } = recordingSurface();
		const pier = await sessionWithFixture(dir.path, ui);
		try {
			await pier.session.prompt("/side-open");
			await until(() => shown.length === 1, "the opened overlay");
			assert.equal(shown[0]!.view.title, "Side Chat");
			assert.deepEqual(shown[0]!.view.rows, [
				{ text: "opened by the extension" },
				{ text: "pushed row", style: "success" },
			]);
			assert.equal(shown[0]!.view.input?.value, "");
			await pier.session.prompt("/side-foreign");
			await until(() => notes.some((n) => n.startsWith("side-foreign")), "the refusal");
			assert.match(
				notes.find((n) => n.startsWith("side-foreign"))!,
				/ui_request_failed: unknown extension overlay "not-mine": extension side-chat registered "chat", "big", "bare", "broken"/,
			);
			await pier.session.prompt("/overlay nope");
			assert.ok(
				notes.some((n) => /\/overlay nope: unknown extension overlay "nope"/.test(n)),
				notes.join("\n"),
			);
		} finally {
			await pier.dispose();
		}
	});
});
