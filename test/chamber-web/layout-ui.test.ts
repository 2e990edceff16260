/**
 * The chamber as a workspace, in Debian's chromium at 1280×800 and 390×844: the transcript keeps the room with
 * a live panel and an app open (side pane on a desktop, a drawer behind a badge on a phone), dialogs take the
 * keyboard and leave a row when nobody answers them, waiting sessions are marked in the list and the title,
 * app surfaces follow dark mode, and axe-core finds nothing serious on the main views. Screenshots in
 * docs/screenshots/ (linked from the README).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { type AxeFinding, seriousViolations } from "./axe.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	idle,
	launchBrowser,
	newSession,
	PHONE,
	rows,
	STEP,
	see,
	send,
	shot,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

type Box = { x: number; y: number; width: number; height: number };

async function box(locator: Locator): Promise<Box> {
	const rect = await locator.boundingBox();
	assert.ok(rect, "the element is laid out");
	return rect;
}

/** Wholly inside the window, with no scrolling. */
function inWindow(rect: Box, size: { width: number; height: number }, what: string): void {
	assert.ok(
		rect.x >= -0.5 &&
			rect.y >= -0.5 &&
			rect.x + rect.width <= size.width + 0.5 &&
			rect.y + rect.height <= size.height + 0.5,
		`${what} is inside the ${size.width}×${size.height} window: ${JSON.stringify(rect)}`,
	);
}

function noSerious(found: AxeFinding[], view: string): void {
	assert.deepEqual(found, [], `axe-core on ${view}: ${JSON.stringify(found, null, 1)}`);
}

/** One exchange with the demo model, then the live panel "jobs" and the demo's Counter app. */
async function exchangePanelAndApp(page: Page, greeting: string, panelText: string): Promise<void> {
	await send(page, greeting);
	await see(rows(page, "assistant"), greeting);
	await idle(page);
	await send(page, `/t-panel jobs ${panelText}`);
	await send(page, "/demo-app");
}

/** Runs `command`, waits for its dialog, then for the focus on the element whose `data-<key>` is `value`. */
async function dialogFocused(
	page: Page,
	command: string,
	method: string,
	key: string,
	value: string,
): Promise<Locator> {
	await send(page, command);
	const dialog = page.locator(`[data-testid="dialog"][data-method="${method}"]`);
	await dialog.waitFor();
	await until(
		async () => (await page.evaluate(`document.activeElement?.dataset?.${key}`)) === value,
		`the focus on ${key} ${value} in the ${method} dialog`,
	);
	return dialog;
}

const activeTestId = (page: Page) =>
	page.evaluate("document.activeElement?.dataset?.testid ?? document.activeElement?.tagName");

describe("the chamber's layout, dialogs and accessibility", () => {
	const dir = tempDir("pier-layout-");
	let serve: Serve;
	let browser: Browser;
	const pageErrors: string[] = [];
	const contexts: BrowserContext[] = [];

	before(async () => {
		serve = await startChamber(dir.path);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close().catch(() => {});
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const open = async (options: typeof DESKTOP) => {
		const context = await browser.newContext(options);
		context.setDefaultTimeout(STEP);
		contexts.push(context);
		const page = await context.newPage();
		page.on("pageerror", (error) => pageErrors.push(error.message));
		return page;
	};

	let desk: Page;

	test("desktop: sign-in and session list pass axe; a panel and an app sit in the side pane, the transcript keeps ≥ 60%", async () => {
		desk = await open(DESKTOP);
		await desk.goto(serve.url);
		await desk.getByTestId("login-password").waitFor();
		noSerious(await seriousViolations(desk), "the sign-in page");
		await signIn(desk, serve.url);
		await newSession(desk);
		noSerious(await seriousViolations(desk), "the session list with an empty session");

		await exchangePanelAndApp(desk, "hello", "first");
		const pane = desk.getByTestId("side-pane");
		const panel = pane.locator('[data-testid="panel"][data-panel-id="jobs"]');
		await see(panel, "first");
		await pane.locator('[data-testid="app-frame"][data-app-id="counter"]').waitFor();
		await send(desk, "/t-panel jobs second");
		await see(panel, "second");
		await send(desk, "one more message after the panels");
		await see(rows(desk, "assistant"), "one more message after the panels");
		await idle(desk);

		// The panel shows in full once (in the pane); the transcript has a marker per version, the latest opens it.
		assert.equal(await desk.locator('[data-testid="panel"][data-panel-id="jobs"]').count(), 1);
		const transcript = desk.getByTestId("transcript");
		assert.equal(await transcript.locator('[data-testid="card"]').filter({ hasText: "second" }).count(), 0);
		await transcript.locator('[data-testid="panel-marker"][data-panel-id="jobs"]').waitFor();
		assert.equal(await transcript.locator("details.superseded").count(), 1, "the earlier version, folded");

		const area = await box(transcript);
		assert.ok(area.height >= 0.6 * 800, `the transcript keeps ${area.height} of 800 px`);
		inWindow(await box(desk.getByTestId("composer")), { width: 1280, height: 800 }, "the composer");
		inWindow(await box(rows(desk, "assistant").last()), { width: 1280, height: 800 }, "the newest message");
		await dismissToasts(desk);
		await shot(desk, "10-layout-desktop.png");
		noSerious(await seriousViolations(desk), "the session screen with a panel and an app");

		// Folded, the transcript takes the width; a marker opens the pane again at its panel.
		const wide = (await box(transcript)).width;
		await pane.getByTestId("pane-close").click();
		await until(async () => !(await pane.isVisible()), "the pane folded");
		assert.ok((await box(transcript)).width > wide + 200, "the transcript widens");
		await desk.getByTestId("pane-toggle").waitFor();
		await transcript.locator('[data-testid="panel-marker"][data-panel-id="jobs"]').click();
		await see(panel, "second");
		// The app kept its document (and token) while folded: its button still runs its command.
		const frame = await (await pane.locator('[data-testid="app-frame"]').elementHandle())!.contentFrame();
		assert.ok(frame);
		await frame.locator("button[data-pichamber-command]").click();
		await see(desk.getByTestId("toast"), "Focusing on app");

		// Resized with the keyboard; the width and the fold are remembered for this session across a reload.
		const before = (await box(pane)).width;
		await pane.getByTestId("pane-resize").focus();
		await desk.keyboard.press("ArrowLeft");
		await desk.keyboard.press("ArrowLeft");
		const widened = (await box(pane)).width;
		assert.ok(widened >= before + 40, `the pane widened: ${before} → ${widened}`);
		await desk.reload();
		await see(panel, "second");
		assert.ok(Math.abs((await box(pane)).width - widened) <= 1, "the width is remembered");
		await pane.getByTestId("pane-close").click();
		await desk.reload();
		await desk.getByTestId("pane-toggle").waitFor();
		assert.equal(await pane.isVisible(), false, "folded after a reload too");
		await desk.getByTestId("pane-toggle").click();
		await see(panel, "second");

		// A narrower window (a tablet): no room for three columns, so the pane becomes the drawer.
		await desk.setViewportSize({ width: 900, height: 800 });
		await desk.getByTestId("pane-toggle").waitFor();
		assert.equal(await pane.isVisible(), false, "the drawer starts closed");
		assert.ok((await box(transcript)).height >= 0.6 * 800, "the transcript keeps the height");
		await desk.getByTestId("pane-toggle").click();
		await see(panel, "second");
		await desk.keyboard.press("Escape");
		await until(async () => !(await pane.isVisible()), "Esc closes the drawer");
		await desk.setViewportSize({ width: 1280, height: 800 });
		await see(panel, "second");
	});

	test("a confirm takes the focus, Enter answers it (pi's default, Yes), focus returns to the composer", async () => {
		await send(desk, "/t-confirm");
		const dialog = desk.locator('[data-testid="dialog"][data-method="confirm"]');
		await see(dialog, "Really do it?");
		await until(async () => (await activeTestId(desk)) === "dialog-confirm-yes", "the focus on Yes");
		// Marked waiting in the list and the title while it waits.
		const id = new URL(desk.url()).searchParams.get("s")!;
		await see(
			desk.locator(`[data-testid="session-item"][data-session-id="${id}"]`).getByTestId("session-waiting"),
			"waits",
		);
		await until(async () => (await desk.title()).startsWith("(1) waiting · "), "the title to count the wait");
		await dismissToasts(desk);
		noSerious(await seriousViolations(desk), "a pending confirm");
		await shot(desk, "11-confirm-focus.png");
		// A user reads the question first: Enter counts once the grace period is over (the dialog says when).
		await desk.locator('[data-testid="dialog"][data-armed="true"]').waitFor();
		await desk.keyboard.press("Enter");
		await dialog.waitFor({ state: "detached" });
		await see(rows(desk, "custom"), '"confirmed": true');
		await until(async () => (await activeTestId(desk)) === "composer", "the focus back in the composer");
		await until(async () => !(await desk.title()).includes("waiting"), "the title without the wait");
		assert.equal(await desk.getByTestId("session-waiting").count(), 0);

		// Another session (another client's) waiting: the daemon's stream marks it in this page's list and title.
		const other = await apiFor(serve.url);
		const { id: otherId, stream } = await other.newSession();
		const command = await other.call("POST", `/api/pi/sessions/${otherId}/command`, { command: "t-confirm" });
		assert.equal(command.status, 202);
		const pending = await stream.waitFor((e) => e.event === "extension.dialog", "the other session's dialog");
		const item = desk.locator(`[data-testid="session-item"][data-session-id="${otherId}"]`);
		await see(item.getByTestId("session-waiting"), "waits for you");
		await until(async () => (await desk.title()).startsWith("(1) waiting · "), "the title to count the other session");
		const answer = `/api/pi/sessions/${otherId}/dialogs/${pending.payload.requestId}`;
		assert.equal((await other.call("POST", answer, { confirmed: false })).status, 200);
		await item.getByTestId("session-waiting").waitFor({ state: "detached" });
		await until(async () => !(await desk.title()).includes("waiting"), "the title without the other's wait");
		stream.close();
	});

	test("a question that appears while someone types is not answered by their Enter", async () => {
		const box = desk.getByTestId("composer");
		await box.fill("/t-confirm");
		await box.press("Enter");
		const dialog = desk.locator('[data-testid="dialog"][data-method="confirm"]');
		await dialog.waitFor();
		await desk.keyboard.press("Enter"); // at once: still in the grace period
		await desk.waitForTimeout(600);
		assert.equal(await dialog.count(), 1, "the early Enter answered nothing");
		await desk.keyboard.press("Escape");
		await dialog.waitFor({ state: "detached" });
		await see(rows(desk, "dialog"), "“Sure?” was cancelled");
	});

	test("a form takes the focus; Esc cancels it and a timed-out dialog leaves a row", async () => {
		const form = await dialogFocused(desk, "/t-form", "form", "fieldId", "name");
		await see(form, "Spawn");
		noSerious(await seriousViolations(desk), "a pending form");
		// Tab stays inside the dialog.
		for (let i = 0; i < 8; i++) await desk.keyboard.press("Tab");
		assert.equal(
			await form.evaluate((el) => el.contains(el.ownerDocument.activeElement)),
			true,
			"Tab stays in the form",
		);
		await desk.keyboard.press("Escape");
		await form.waitFor({ state: "detached" });
		await see(rows(desk, "dialog"), "“Spawn” was cancelled");

		await send(desk, "/t-confirm 1500");
		const timed = desk.locator('[data-testid="dialog"][data-method="confirm"]');
		await see(timed.getByTestId("dialog-countdown"), /\d s/);
		await timed.waitFor({ state: "detached", timeout: STEP });
		await see(rows(desk, "dialog"), "“Sure?” timed out unanswered");
		// The row is in the session, not only on this page.
		await desk.reload();
		await see(rows(desk, "dialog"), "“Sure?” timed out unanswered");
		const app = await (await desk.locator('[data-testid="app-frame"]').elementHandle())!.contentFrame();
		await app!.locator("button[data-pichamber-command]").waitFor();
		await shot(desk, "12-dialog-rows.png");

		// A select: the first option has the focus, ↓ moves it, Enter picks it.
		const select = await dialogFocused(desk, "/t-select", "select", "value", "red");
		await see(select, "Pick");
		await desk.keyboard.press("ArrowDown");
		await desk.locator('[data-testid="dialog"][data-armed="true"]').waitFor(); // past the grace period
		await desk.keyboard.press("Enter");
		await select.waitFor({ state: "detached" });
		await see(rows(desk, "custom"), '"selected": "green"');
	});

	test("phone: the drawer holds the panel and the app; the composer and the newest message stay in view", async () => {
		const phone = await open(PHONE);
		await signIn(phone, serve.url);
		noSerious(await seriousViolations(phone), "the phone's session list");
		await newSession(phone);
		await exchangePanelAndApp(phone, "hello from a phone", "on the phone");
		const toggle = phone.getByTestId("pane-toggle");
		await see(toggle.getByTestId("pane-badge"), /^2$/);
		await send(phone, "the newest message");
		await see(rows(phone, "assistant"), "the newest message");
		await idle(phone);
		const size = { width: 390, height: 844 };
		inWindow(await box(phone.getByTestId("composer")), size, "the composer");
		inWindow(await box(rows(phone, "assistant").last()), size, "the newest message");
		assert.equal(await phone.getByTestId("side-pane").isVisible(), false, "the drawer starts closed");
		await dismissToasts(phone);
		await shot(phone, "13-phone-layout.png");
		noSerious(await seriousViolations(phone), "the phone's session screen");

		await toggle.tap();
		const drawer = phone.getByTestId("side-pane");
		await see(drawer.locator('[data-testid="panel"][data-panel-id="jobs"]'), "on the phone");
		inWindow(await box(drawer), size, "the drawer");
		await drawer.locator('[data-testid="app-frame"]').waitFor();
		await shot(phone, "14-phone-drawer.png");
		noSerious(await seriousViolations(phone), "the phone's drawer");
		await drawer.getByTestId("pane-close").tap();
		await until(async () => !(await drawer.isVisible()), "the drawer closed");
	});

	test("phone: a form's Submit is visible without scrolling, and the form is answered", async () => {
		const phone = contexts.at(-1)!.pages()[0]!;
		const form = await dialogFocused(phone, "/demo-form", "form", "fieldId", "name");
		await see(form, "Spawn agent");
		const size = { width: 390, height: 844 };
		inWindow(await box(form.getByTestId("dialog-submit")), size, "the form's Submit");
		inWindow(await box(form), size, "the form sheet");
		await shot(phone, "15-phone-form.png");
		noSerious(await seriousViolations(phone), "a form on the phone");
		await form.locator('[data-field-id="name"]').fill("scout-p");
		await form.getByTestId("dialog-submit").tap();
		await form.waitFor({ state: "detached" });
		await see(phone.getByTestId("pane-badge"), /^3$/);
	});

	test("dark mode reaches app surfaces: the frame follows the scheme, the sandbox is unchanged", async () => {
		const dark = await open({ ...DESKTOP, colorScheme: "dark" });
		await signIn(dark, serve.url);
		await newSession(dark);
		await send(dark, "/demo-app");
		const frameElement = dark.locator('[data-testid="app-frame"][data-app-id="counter"]');
		await frameElement.waitFor();
		assert.equal(await frameElement.getAttribute("sandbox"), "allow-scripts");
		const frame = await (await frameElement.elementHandle())!.contentFrame();
		assert.ok(frame);
		await frame.locator("button[data-pichamber-command]").waitFor();
		const seen = (await frame.evaluate(`(() => ({
			dark: matchMedia("(prefers-color-scheme: dark)").matches,
			background: getComputedStyle(document.documentElement).backgroundColor,
			origin: self.origin,
		}))()`)) as { dark: boolean; background: string; origin: string };
		assert.equal(seen.dark, true, "the app can read the scheme");
		assert.equal(seen.origin, "null", "still an opaque origin");
		const [r, g, b] = (seen.background.match(/\d+/g) ?? []).map(Number);
		assert.ok(r !== undefined && r + (g ?? 0) + (b ?? 0) < 3 * 80, `a dark background: ${seen.background}`);
		await dismissToasts(dark);
		await shot(dark, "16-dark-app.png");
		noSerious(await seriousViolations(dark), "dark mode with an app");
	});

	test("the pages threw no uncaught errors", () => {
		assert.deepEqual(pageErrors, []);
	});
});
