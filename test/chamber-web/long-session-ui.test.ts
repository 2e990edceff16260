/**
 * A 1,200-entry session in a real browser (about four of the daemon's 300-row pages, eight times the 150 rows drawn; the
 * 5,000-entry figures are the bench's): it opens at its last message with only a window of rows in the DOM,
 * earlier rows load as the reader scrolls up (no "show earlier" clicks) until the first message, a button
 * returns to the bottom, and the rail beside the transcript jumps to a prompt.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { writeSession } from "../../bench/session-files.js";
import { sessionDirFor } from "../../src/agent/paths.js";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	launchBrowser,
	PHONE,
	rows,
	see,
	shot,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

const ENTRIES = 1200;
/** However long the transcript, the DOM holds a window of it: a screenful and some margin. */
const WINDOW_LIMIT = 150;

interface Row {
	id: string;
	kind: string;
}

describe("a long session in the browser", () => {
	const dir = tempDir("pier-long-ui-");
	let serve: Serve;
	let browser: Browser;
	let api: ApiClient;
	let page: Page;
	let id: string;
	let all: Row[];

	const rowIds = () => rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-row-id") ?? ""));
	/** Row `rowId` is drawn and lies within the transcript's visible box. */
	const onScreen = (rowId: string) =>
		page.evaluate((target) => {
			type Box = { getBoundingClientRect(): { top: number; bottom: number } };
			const doc = (globalThis as unknown as { document: { querySelector(s: string): Box | null } }).document;
			const row = doc.querySelector(`[data-testid="row"][data-row-id="${target}"]`);
			const box = doc.querySelector('[data-testid="transcript"]');
			if (!row || !box) return false;
			const r = row.getBoundingClientRect();
			const b = box.getBoundingClientRect();
			return r.bottom > b.top && r.top < b.bottom;
		}, rowId);

	before(async () => {
		const project = join(dir.path, "long");
		mkdirSync(project, { recursive: true });
		id = writeSession(project, sessionDirFor(project, join(dir.path, "agent"), {}), ENTRIES).id;
		serve = await startChamber(dir.path, ["--no-examples"]);
		api = await apiFor(serve.url);
		all = (await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`)).body.rows;
		assert.ok(all.length > 900, `the session has ${all.length} rows`);
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		page = await context.newPage();
		await signIn(page, serve.url);
		await page.goto(`${serve.url}/?s=${id}`);
	});

	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("opens at its last message with only a window of rows in the DOM", async () => {
		const last = all.at(-1)!.id;
		await until(() => onScreen(last), "the last message on screen");
		const drawn = await rows(page).count();
		assert.ok(drawn > 0 && drawn < WINDOW_LIMIT, `${drawn} row elements for ${all.length} rows`);
		assert.equal(await page.getByTestId("scroll-to-bottom").count(), 0, "at the bottom, no scroll-to-bottom button");
	});

	test("scrolling up loads earlier rows without a click until the first message is reachable", async () => {
		const transcript = page.getByTestId("transcript");
		await transcript.hover();
		let most = 0;
		await until(
			async () => {
				await page.mouse.wheel(0, -20_000);
				most = Math.max(most, await rows(page).count());
				return (await rowIds()).includes(all[0]!.id);
			},
			"the first row drawn",
			120_000,
		);
		await until(() => onScreen(all[0]!.id), "the first message on screen");
		assert.ok(most < WINDOW_LIMIT, `at most ${most} row elements while scrolling`);
		assert.equal(await page.getByTestId("older-rows").count(), 0, "nothing earlier left to load");
		// Every row drawn on the way down is the daemon's next one: none missing, doubled or out of order.
		const seen: string[] = await transcript.evaluate(async (el) => {
			const ids: string[] = [];
			const raf = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number }).requestAnimationFrame;
			const frame = () => new Promise<void>((r) => raf(() => raf(r)));
			for (;;) {
				for (const row of el.querySelectorAll('[data-testid="row"]')) {
					const rowId = row.getAttribute("data-row-id") ?? "";
					if (!ids.includes(rowId)) ids.push(rowId);
				}
				if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return ids;
				el.scrollTop += el.clientHeight * 3;
				await frame();
			}
		});
		assert.deepEqual(
			seen,
			all.map((r) => r.id),
			"the rows in the daemon's order",
		);
	});

	test("a scroll made while a redraw is due is kept: a screen and a half per frame reaches the bottom", async () => {
		// Each step lands after the page has asked to redraw and before the scroll's own event: a redraw that put
		// the reader back where it last saw them held the view at the top for ever.
		const steps = await page.getByTestId("transcript").evaluate(async (el) => {
			const raf = (globalThis as unknown as { requestAnimationFrame(cb: () => void): number }).requestAnimationFrame;
			el.scrollTop = 0;
			for (let step = 0; step < 5000; step++) {
				if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return step;
				el.scrollTop += el.clientHeight * 1.5;
				await new Promise<void>((r) => raf(() => r()));
			}
			return -1;
		});
		assert.ok(steps > 0, "the bottom is reached by scrolling down, a step a frame");
		await until(() => onScreen(all.at(-1)!.id), "the last message on screen");
	});

	test("the scroll-to-bottom button appears away from the bottom and returns there", async () => {
		await page.getByTestId("transcript").evaluate((el) => {
			el.scrollTop = el.scrollHeight / 2;
		});
		const button = page.getByTestId("scroll-to-bottom");
		await button.waitFor();
		await button.click();
		await until(() => onScreen(all.at(-1)!.id), "the last message on screen again");
		await button.waitFor({ state: "detached" });
	});

	test("the prompt rail jumps to a prompt", async () => {
		const prompts = all.filter((r) => r.kind === "user");
		assert.equal(await page.getByTestId("prompt-mark").count(), prompts.length, "a mark per prompt");
		const target = prompts[Math.floor(prompts.length / 3)]!.id;
		assert.equal(await onScreen(target), false, "the prompt is off screen at first");
		const mark = page.locator(`[data-testid="prompt-mark"][data-row-id="${target}"]`);
		await mark.focus();
		await mark.press("Enter");
		await until(() => onScreen(target), "the prompt on screen");
		await page.getByTestId("scroll-to-bottom").waitFor();
		await shot(page, "long-session-rail.png");
	});

	test("on a phone it opens at its last message, windowed, with the rail", async () => {
		const phone = await (await browser.newContext(PHONE)).newPage();
		await signIn(phone, serve.url);
		await phone.goto(`${serve.url}/?s=${id}`);
		const last = all.at(-1)!.id;
		await until(
			() =>
				phone.evaluate((target) => {
					const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document;
					return doc.querySelector(`[data-testid="row"][data-row-id="${target}"]`) !== null;
				}, last),
			"the last message drawn on the phone",
		);
		const drawn = await rows(phone).count();
		assert.ok(drawn > 0 && drawn < WINDOW_LIMIT, `${drawn} row elements on the phone`);
		assert.ok((await phone.getByTestId("prompt-mark").count()) > 0, "the rail marks the loaded prompts");
		await see(phone.getByTestId("connection-state"), /^live$/);
		await shot(phone, "long-session-phone.png");
	});
	test("a fresh view of the session (a move in its tree) keeps the earlier rows the reader loaded", async () => {
		assert.equal(await page.getByTestId("older-rows").count(), 0, "every row is loaded");
		const marks = await page.getByTestId("prompt-mark").count();
		const target = all.findLast((r, i) => i < all.length - 2 && r.kind !== "user")!;
		const gone = all.slice(all.indexOf(target) + 1);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/open`, {})).status, 200);
		// Last in this file: the session ends elsewhere afterwards.
		const moved = await api.call("POST", `/api/pi/sessions/${id}/tree`, { entryId: target.id });
		assert.equal(moved.status, 200, JSON.stringify(moved.body));
		// The page fetches its latest page of rows again on `session.branch`; the rows before that page stay.
		await page.getByTestId("scroll-to-bottom").click();
		await until(async () => !(await rowIds()).includes(all.at(-1)!.id), "the rows after the tree's new leaf gone");
		await until(() => onScreen(target.id), "the new leaf on screen");
		assert.equal(await page.getByTestId("older-rows").count(), 0, "no earlier page to load again");
		const lost = gone.filter((r) => r.kind === "user").length;
		assert.equal(await page.getByTestId("prompt-mark").count(), marks - lost, "every loaded prompt still marked");
	});
});
