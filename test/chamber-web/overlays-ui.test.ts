/**
 * A protocol overlay in the chamber, in Debian's Chromium: a process extension written frame by frame
 * (test/fixtures/process/overlay) registers overlays; `/overlay chat` opens one as a modal with its sanitized
 * rows and the host's editor; a submit and a key reach the extension, which pushes new rows; a failed submit
 * shows on the overlay's own line and hands the draft back; Escape closes it; a render past the bounds shows
 * 100 rows of 200 characters. Screenshot: docs/screenshots/21-overlay.png.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	idle,
	launchBrowser,
	newSession,
	see,
	send,
	shot,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

describe("protocol overlays in the chamber", () => {
	const dir = tempDir("pier-overlays-ui-");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		serve = await startChamber(dir.path, ["-e", join(REPO_ROOT, "test/fixtures/process/overlay")]);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("opened, rendered within bounds, answering a submit and a key, closed with Escape", {
		timeout: 120_000,
	}, async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		const errors: string[] = [];
		page.on("pageerror", (error) => errors.push(error.message));
		await signIn(page, serve.url);
		const sessionId = await newSession(page);
		await send(page, "/overlay chat");
		const overlay = page.getByTestId("overlay");
		await overlay.waitFor();
		assert.equal(await overlay.getAttribute("aria-modal"), "true");
		assert.match((await overlay.locator("h2").textContent()) ?? "", /Side Chat/);
		const rowsOf = () => overlay.getByTestId("overlay-row");
		assert.deepEqual((await rowsOf().allTextContents()).slice(0, 4), [
			"hello from overlay",
			"styled row",
			"secret [REDACTED]",
			"unknown style",
		]);
		assert.equal(await rowsOf().nth(1).getAttribute("data-style"), "accent");
		assert.equal(await rowsOf().nth(2).getAttribute("data-style"), "error");
		assert.equal(await rowsOf().nth(3).getAttribute("data-style"), null); // "blink" is not a style
		assert.doesNotMatch((await overlay.textContent()) ?? "", /ghp_/);
		assert.ok((await rowsOf().allTextContents()).includes("escape \\u001B[2Jhere"), "the ESC shown as an escape");

		const input = overlay.getByTestId("overlay-input");
		assert.equal(await input.inputValue(), "initial draft"); // the render's opening draft
		assert.equal(await input.getAttribute("placeholder"), "Ask the side agent…");
		await input.fill("what is on the side?");
		await input.press("Enter");
		await see(rowsOf(), "you said: what is on the side?");
		assert.equal(await input.inputValue(), "");
		await input.fill("and on the other?");
		await input.press("Enter");
		await see(rowsOf(), "you said: and on the other?");
		await input.press("ArrowDown"); // a one-line editor: ↓ is the overlay's scroll_down, as in the terminal
		await see(rowsOf(), "last key: scroll_down");
		assert.equal(await rowsOf().filter({ hasText: "characters noted" }).first().getAttribute("data-style"), "success");
		await dismissToasts(page);
		await shot(page, "21-overlay.png");

		await input.fill("fail please");
		await input.press("Enter");
		await see(overlay.getByTestId("overlay-status"), "submit failed: the side agent is unwell");
		await until(async () => (await input.inputValue()) === "fail please", "the failed draft handed back");

		const api = await apiFor(serve.url);
		const wrong = await api.call("POST", `/api/pi/sessions/${sessionId}/overlay`, {
			id: "big",
			kind: "key",
			action: "home",
		});
		assert.equal(wrong.status, 404);
		const badAction = await api.call("POST", `/api/pi/sessions/${sessionId}/overlay`, {
			id: "chat",
			kind: "key",
			action: "ctrl+c",
		});
		assert.equal(badAction.status, 400);

		await input.press("Escape");
		await overlay.waitFor({ state: "detached" });
		const view = await api.call<{ ui: { overlay?: unknown } }>("GET", `/api/pi/sessions/${sessionId}`);
		assert.equal(view.body.ui.overlay, undefined);

		await idle(page);
		await send(page, "/overlay big");
		await overlay.waitFor();
		await until(async () => (await rowsOf().count()) === 100, "100 rows of the 101 rendered");
		const lengths = await rowsOf().evaluateAll((els) => els.slice(0, 2).map((e) => [...(e.textContent ?? "")].length));
		assert.deepEqual(lengths, [200, 200]);
		assert.equal(await rowsOf().last().textContent(), "row-99");
		await overlay.getByTestId("overlay-close").click();
		await overlay.waitFor({ state: "detached" });

		// A non-capturing overlay is a panel beside the composer: no modal, the keyboard stays where it was.
		await send(page, "/side-peek");
		await overlay.waitFor();
		assert.equal(await overlay.getAttribute("aria-modal"), null);
		assert.match((await overlay.locator("h2").textContent()) ?? "", /Peek/);
		assert.match((await page.getByTestId("overlay-layer").getAttribute("class")) ?? "", /overlay-layer-side/);
		assert.equal(await overlay.getByTestId("overlay-input").count(), 0); // "bare" declared no editor
		assert.equal(await page.evaluate("document.activeElement?.getAttribute('data-testid')"), "composer");
		await overlay.getByTestId("overlay-close").click();
		await overlay.waitFor({ state: "detached" });
		assert.deepEqual(errors, []);
		await context.close();
	});
});
