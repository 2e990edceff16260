/**
 * pi's renderers in a real browser against a real `pier serve`: pi's examples message-renderer.ts, entry-renderer.ts
 * and built-in-tool-renderer.ts draw their rows as pi's terminal does (the same session resumed in `pier` in tmux at
 * the chamber's width: the captured screen, ANSI stripped, holds the chamber's lines), with the raw data a click
 * away and Ctrl+O expanding as in pi; a throwing renderer, one that runs 10 s and a protocol renderer past its
 * invocation timeout each cost their own row (raw data under a line naming the extension) while the rows beside
 * them draw. Screenshots: renderers-desktop.png (1280×800), renderers-phone.png (390×844).
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { stripVTControlCharacters } from "node:util";
import type { Page } from "playwright-core";
import { cleanEnv, PIER_BIN, REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { tmux, waitForScreen } from "../helpers/tmux.js";
import {
	type BrowserRig,
	closeRig,
	dismissToasts,
	idle,
	newSession,
	openRig,
	PHONE,
	rows,
	STEP,
	see,
	send,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

const PI_EXAMPLES = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions");
const EXAMPLES = ["message-renderer.ts", "entry-renderer.ts", "built-in-tool-renderer.ts"].map((e) =>
	join(PI_EXAMPLES, e),
);
const FAULTS = [
	join(REPO_ROOT, "test/fixtures/chamber-web/renderer-faults.ts"),
	join(REPO_ROOT, "test/fixtures/process/kit-slow-renderer"),
];

function jsonlFiles(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...jsonlFiles(path));
		else if (entry.name.endsWith(".jsonl")) out.push(path);
	}
	return out;
}

/** The text of each drawn row's lines (trailing spaces trimmed), by its draw key. */
async function drawnBlocks(page: Page): Promise<Map<string, string[]>> {
	const blocks = (await page.evaluate(`[...document.querySelectorAll('[data-testid="drawn"][data-state="drawn"]')].map(
		(el) => [el.dataset.drawKey, [...el.querySelectorAll(".tui-line")].map((l) => l.textContent.replace(/\\u00a0/g, " ").trimEnd())]
	)`)) as [string, string[]][];
	return new Map(blocks);
}

/** The block's lines with the blank ones at either end dropped. */
function trimBlock(lines: string[]): string[] {
	let start = 0;
	let end = lines.length;
	while (start < end && lines[start] === "") start++;
	while (end > start && lines[end - 1] === "") end--;
	return lines.slice(start, end);
}

describe("pi's renderers in the browser", () => {
	const dir = tempDir("pier-renderers-ui-");
	const pageErrors: string[] = [];
	let rig: BrowserRig;
	let page: Page;
	const widths: number[] = [];

	before(async () => {
		const agent = join(dir.path, "agent");
		mkdirSync(agent, { recursive: true });
		// The slow protocol renderer sleeps 10 s: past this invocation timeout.
		writeFileSync(
			join(agent, "settings.json"),
			JSON.stringify({ extensionHost: { timeouts: { invocationMs: 2_000 } } }),
		);
		rig = await openRig(dir.path, pageErrors, [...EXAMPLES, ...FAULTS]);
		page = rig.page;
		page.on("response", (res) => {
			if (!res.url().includes("/drawings?")) return;
			void res
				.json()
				.then((body: { width?: number }) => {
					if (typeof body.width === "number") widths.push(body.width);
				})
				.catch(() => {});
		});
		await signIn(page, rig.serve.url);
	});
	after(async () => {
		await closeRig(rig);
		dir[Symbol.dispose]();
	});

	test("the examples' rows are drawn as pi's terminal draws them, raw a click away, Ctrl+O expands", async (t) => {
		const id = await newSession(page);
		await send(page, "/status warn disk full");
		await send(page, "/status-card hello");
		await send(page, 'write {"path":"app.ts","content":"alpha\\nbeta\\n"}');
		await idle(page);
		const drawn = page.locator('[data-testid="drawn"][data-state="drawn"]');
		await until(async () => (await drawn.count()) >= 3, "three drawn rows");
		await see(drawn, "[WARN] disk full");
		await see(drawn, "hello");
		await see(drawn, /write/);
		const blocks = await drawnBlocks(page);
		const width = widths.at(-1);
		assert.ok(width, "the page asked for drawings");

		// The same session in pier's terminal (pi's interactive mode) at that width: forked from its file, which the
		// chamber holds while the session runs (its lease), so the terminal shows the same entries.
		const file = jsonlFiles(join(dir.path, "agent")).find((f) => f.includes(id));
		assert.ok(file, `the session file of ${id}`);
		const name = `pier-renderers-${process.pid}`;
		const env = Object.entries(cleanEnv(join(dir.path, "agent"), { TERM: "xterm-256color" }))
			.map(([k, v]) => `${k}=${JSON.stringify(v)}`)
			.join(" ");
		const extensions = EXAMPLES.map((e) => `-e ${JSON.stringify(e)}`).join(" ");
		const command = `cd ${JSON.stringify(dir.path)} && env -i ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(PIER_BIN)} ${extensions} --fork ${JSON.stringify(file)} 2>/dev/null`;
		tmux("new-session", "-d", "-s", name, "-x", String(width), "-y", "80", command);
		t.after(() => {
			try {
				tmux("kill-session", "-t", name);
			} catch {
				// already gone
			}
		});
		await waitForScreen(name, /\[WARN\] disk full[\s\S]*write/);
		// With its escapes (-e), stripped here: the comparison is of the text a terminal shows.
		const screen = stripVTControlCharacters(tmux("capture-pane", "-p", "-e", "-t", name, "-S", "-200"))
			.split("\n")
			.map((l) => l.trimEnd());
		assert.equal(blocks.size, 3, [...blocks.keys()].join(", "));
		for (const [key, lines] of blocks) {
			const block = trimBlock(lines);
			assert.ok(block.length > 0, `${key} drew lines`);
			const at = screen.indexOf(block[0]!);
			assert.ok(at >= 0, `pi's terminal shows ${JSON.stringify(block[0])}:\n${screen.join("\n")}`);
			assert.deepEqual(screen.slice(at, at + block.length), block, `the ${key} row as pi's terminal draws it`);
		}

		// The raw data one click away, and back.
		const statusKey = await drawn.filter({ hasText: "[WARN] disk full" }).first().getAttribute("data-draw-key");
		const status = page.locator(`[data-testid="drawn"][data-draw-key="${statusKey}"]`);
		await status.getByTestId("drawn-raw").click();
		await see(status, /status-update/);
		await status.getByTestId("drawn-raw").click();
		await see(status.getByTestId("drawn-lines"), "[WARN] disk full");
		// Ctrl+O (pi's app.tools.expand) expands every drawn row: the status shows its time.
		await page.getByTestId("transcript").click({ position: { x: 5, y: 5 } });
		await page.keyboard.press("Control+o");
		await see(page.getByTestId("drawn-lines"), / at \d/);
		await page.keyboard.press("Control+o");
		await until(async () => !(await status.textContent())?.match(/ at \d/), "collapsed again");
		// Per row.
		await status.getByTestId("drawn-expand").click();
		await see(status.getByTestId("drawn-lines"), / at \d/);
		await status.getByTestId("drawn-expand").click();
		await dismissToasts(page);
		await shot(page, "renderers-desktop.png");
		// A narrower window crosses into another width bucket: the rows are asked for again, drawn at it.
		await page.setViewportSize({ width: 760, height: 800 });
		const narrower = await until(() => {
			const last = widths.at(-1);
			return last !== undefined && last < width ? last : undefined;
		}, "drawings at a narrower bucket");
		await see(drawn, "[WARN] disk full");
		assert.ok(narrower < width);
		await page.setViewportSize({ width: 1280, height: 800 });
		const phone = await rig.browser.newContext(PHONE);
		const small = await phone.newPage();
		await signIn(small, rig.serve.url);
		await small.goto(`${rig.serve.url}/?s=${id}`);
		await small.getByTestId("composer").waitFor({ timeout: STEP });
		await see(small.locator('[data-testid="drawn"][data-state="drawn"]'), "[WARN] disk full");
		await sleep(300);
		await shot(small, "renderers-phone.png");
		await phone.close();
		assert.deepEqual(pageErrors, []);
	});

	test("a throwing, a 10-second and a timed-out protocol renderer each cost their own row", {
		timeout: 4 * STEP,
	}, async () => {
		await newSession(page);
		await send(page, "/status before");
		await send(page, "/boom kaboom");
		await send(page, "/busy spinning");
		await send(page, "/proto-slow zzz");
		await send(page, "/proto-quick fine");
		await send(page, "/status after");
		const failed = page.locator('[data-testid="drawn"][data-state="failed"]');
		await until(async () => (await failed.count()) >= 3, "three rows whose renderer failed", 40_000);
		await see(failed, /renderer-faults\.ts.*the boom renderer broke/);
		await see(failed, /renderer-faults\.ts.*took \d+\.\d s/);
		await see(failed, /kit-slow-renderer.*did not answer within 2000 ms/);
		// Each shows its raw data.
		await see(failed.filter({ hasText: "kaboom" }), /fault\.boom/);
		const drawn = page.locator('[data-testid="drawn"][data-state="drawn"]');
		await see(drawn, "[INFO] before");
		await see(drawn, "[INFO] after");
		await see(drawn, "PROTO fine");
		assert.equal(await rows(page, "error").count(), 0);
		assert.deepEqual(pageErrors, []);
	});
});
