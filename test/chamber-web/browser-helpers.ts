/**
 * Shared by the browser tests: Debian's chromium driven by playwright-core (never a downloaded browser), a real
 * `pier serve` with the demo extension, the UI test extension and the hostile fixture, and the few page steps
 * every test repeats (sign in, open a session, send a message, take a screenshot).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
	type Browser,
	type BrowserContext,
	type BrowserContextOptions,
	chromium,
	type Locator,
	type Page,
} from "playwright-core";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";

/** Every step waits this long at most; the demo model answers in well under a second. */
export const STEP = 15_000;
export const PASSWORD = "correct horse battery";
export const SCREENSHOTS = join(REPO_ROOT, "docs/screenshots");

export const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 };
export const PHONE: BrowserContextOptions = {
	viewport: { width: 390, height: 844 },
	deviceScaleFactor: 2,
	isMobile: true,
	hasTouch: true,
	userAgent:
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
};

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({
		executablePath: process.env.PIER_CHROMIUM ?? "/usr/bin/chromium",
		args: [
			"--headless",
			"--no-sandbox",
			"--disable-gpu",
			"--disable-background-networking",
			"--disable-component-update",
			"--disable-sync",
			"--no-first-run",
		],
	});
}

/** The daemon every browser test file runs: both example extensions and the hostile fixture loaded. */
export function serveArgs(stateDir: string, extra: string[] = []): string[] {
	return [
		"-e",
		join(REPO_ROOT, "examples/extensions/chamber-demo.ts"),
		"-e",
		join(REPO_ROOT, "test/fixtures/chamber/ui-ext.ts"),
		"-e",
		join(REPO_ROOT, "test/fixtures/chamber-web/xss-ext.ts"),
		"--state-dir",
		stateDir,
		"--ui-password",
		PASSWORD,
		...extra,
	];
}

export function startChamber(dir: string, extra: string[] = []): Promise<Serve> {
	return startServe(serveArgs(join(dir, "state"), extra), { agentDir: join(dir, "agent"), cwd: dir });
}

/** A separate HTTP client, signed in with the password, to check what the daemon really did. */
export async function apiFor(url: string): Promise<ApiClient> {
	const api = new ApiClient(url);
	const reply = await api.login(PASSWORD);
	if (reply.status !== 200) throw new Error(`login failed: ${reply.status} ${JSON.stringify(reply.body)}`);
	return api;
}

/** Polls `check` until it returns a truthy value. */
export async function until<T>(check: () => Promise<T> | T, what: string, timeoutMs = STEP): Promise<NonNullable<T>> {
	const deadline = Date.now() + timeoutMs;
	let last: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value) return value as NonNullable<T>;
			last = value;
		} catch (error) {
			last = error;
		}
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** Waits for the first element matching `locator` that contains `text`. */
export async function see(
	locator: Locator,
	text: string | RegExp,
	state: "visible" | "attached" = "visible",
): Promise<Locator> {
	const match = locator.filter({ hasText: text }).first();
	await match.waitFor({ state, timeout: STEP });
	return match;
}

export async function signIn(page: Page, url: string): Promise<void> {
	await page.goto(url);
	await page.getByTestId("login-password").fill(PASSWORD);
	await page.getByTestId("login-submit").click();
	await page.getByTestId("session-list").waitFor({ timeout: STEP });
}

/** Clicks "New session" and returns the id the app put into `?s=`. */
export async function newSession(page: Page): Promise<string> {
	const before = new URL(page.url()).searchParams.get("s");
	await page.getByTestId("new-session").click();
	const id = await until(() => {
		const s = new URL(page.url()).searchParams.get("s");
		return s && s !== before ? s : undefined;
	}, "the new session in the address");
	await page.getByTestId("composer").waitFor({ timeout: STEP });
	await page
		.locator(`[data-testid="session-item"][data-session-id="${id}"]`)
		.waitFor({ state: "attached", timeout: STEP });
	return id;
}

/** Types into the composer and presses Enter, as a person would. */
export async function send(page: Page, text: string): Promise<void> {
	const box = page.getByTestId("composer");
	await box.fill(text);
	await box.press("Enter");
	// The composer empties once the daemon accepted the message.
	await until(async () => (await box.inputValue()) === "", `the composer to accept ${JSON.stringify(text)}`);
}

/** The agent is idle again: the composer shows Send rather than Steer. */
export async function idle(page: Page): Promise<void> {
	await page.getByTestId("send").waitFor({ timeout: STEP });
}

/**
 * Sends a prompt and waits for its run to end. `send` then `idle` alone can return before the run's start reaches
 * the page (Send still showing), and a next prompt then meets a busy agent; an answer row on screen means the start
 * has arrived, since the stream is ordered.
 */
export async function runTurn(page: Page, text: string): Promise<void> {
	const answers = rows(page, "assistant");
	const before = await answers.count();
	await send(page, text);
	await until(async () => (await answers.count()) > before, `an answer to ${JSON.stringify(text)}`);
	await idle(page);
}

export function rows(page: Page, kind?: string): Locator {
	return page.locator(kind ? `[data-testid="row"][data-kind="${kind}"]` : '[data-testid="row"]');
}

/** Dismisses the toasts on screen (a click closes one), so screenshots show the page rather than old notices. */
export async function dismissToasts(page: Page): Promise<void> {
	const toasts = page.getByTestId("toast");
	for (let n = await toasts.count(); n > 0; n = await toasts.count()) {
		// A toast with an action (Undo) stays until its × closes it.
		const first = toasts.first();
		const close = first.getByTestId("toast-dismiss");
		await ((await close.count()) > 0 ? close : first).click({ timeout: 2000 }).catch(() => {});
	}
}

export async function shot(page: Page, name: string): Promise<void> {
	mkdirSync(SCREENSHOTS, { recursive: true });
	// The caret blinks and the countdown ticks; neither should decide whether the screenshot matches.
	await page.screenshot({ path: join(SCREENSHOTS, name), animations: "disabled", caret: "hide" });
}

/** The page's horizontal overflow in CSS pixels (0: nothing sticks out sideways). */
export function horizontalOverflow(page: Page): Promise<number> {
	return page.evaluate(
		"(() => { const el = document.scrollingElement; return el.scrollWidth - el.clientWidth; })()",
	) as Promise<number>;
}

export interface BrowserRig {
	serve: Serve;
	browser: Browser;
	context: BrowserContext;
	page: Page;
	api: ApiClient;
}

/**
 * A daemon, a browser with one desktop page (its uncaught errors collected), and a signed-in API client. The daemon
 * runs the browser tests' usual extensions, or only `extensions` (each loaded with `-e`) when given.
 */
export async function openRig(dir: string, pageErrors: string[], extensions?: string[]): Promise<BrowserRig> {
	const serve = extensions
		? await startServe(
				[...extensions.flatMap((e) => ["-e", e]), "--state-dir", join(dir, "state"), "--ui-password", PASSWORD],
				{ agentDir: join(dir, "agent"), cwd: dir },
			)
		: await startChamber(dir);
	const browser = await launchBrowser();
	const context = await browser.newContext(DESKTOP);
	context.setDefaultTimeout(STEP);
	const page = await context.newPage();
	page.on("pageerror", (error) => pageErrors.push(error.message));
	return { serve, browser, context, page, api: await apiFor(serve.url) };
}

export async function closeRig(rig: Partial<BrowserRig>): Promise<void> {
	await rig.browser?.close().catch(() => {});
	await rig.serve?.stop();
}

/** Picks an account action from the header's menu: a panel (Providers, Grants, Pair a device) or Sign out. */
export async function account(page: Page, item: "providers" | "grants" | "pair-device" | "sign-out"): Promise<void> {
	await page.getByTestId("account-menu").click();
	await page.getByTestId(item).click();
}
