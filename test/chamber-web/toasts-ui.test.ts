/**
 * A toast never covers the side pane's Hide button: with a panel in the pane and a notice on screen, Hide still
 * takes the click (Playwright's trial click fails when another element would receive it).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { DESKTOP, launchBrowser, newSession, STEP, see, send, signIn, startChamber } from "./browser-helpers.js";

describe("toasts and the side pane", () => {
	const dir = tempDir("pier-toasts-ui-");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		serve = await startChamber(dir.path, ["--no-examples"]);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("with a notice on screen, the pane's Hide button takes the click", async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await newSession(page);
		await send(page, "/t-panel jobs first");
		const pane = page.getByTestId("side-pane");
		await see(pane.locator('[data-testid="panel"][data-panel-id="jobs"]'), "first");
		await send(page, "/t-notify a notice long enough to reach across the right-hand side of the window");
		const toast = await see(page.getByTestId("toast"), "a notice long enough");
		const hide = pane.getByTestId("pane-close");
		const [t, h] = [await toast.boundingBox(), await hide.boundingBox()];
		assert.ok(t && h);
		const overlaps = t.x < h.x + h.width && h.x < t.x + t.width && t.y < h.y + h.height && h.y < t.y + t.height;
		assert.equal(overlaps, false, `toast ${JSON.stringify(t)} over Hide ${JSON.stringify(h)}`);
		await hide.click({ trial: true, timeout: STEP });
		await context.close();
	});
});
