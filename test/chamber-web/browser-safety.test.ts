/**
 * The chamber in a browser, continued: hostile content stays inert (markdown, cards, panels, custom entries,
 * toasts, the title), a phone-sized screen works without sideways scrolling, and a page reload and daemon
 * restarts keep the live panels, with the connection badge following the daemon down and back up.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { ApiClient, type Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	closeRig,
	openRig,
	dismissToasts,
	horizontalOverflow,
	idle,
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

const IMG_ATTR = '<img src=x onerror="window.__pwned=1">';
const JS_LINK = "[x](javascript:window.__pwned=2)";
const SCRIPT = "<script>window.__pwned=3</script>";
const IMG = "<img src=x onerror=window.__pwned=4>";

/** Anything in the page that could run script, and whether any payload did. */
const INERT_PROBE = `(() => {
	const scope = document.querySelectorAll('[data-testid="transcript"], [data-testid="panel-dock"], .toasts, .topbar, .composer-area');
	const inside = (selector) => [...scope].reduce((n, el) => n + el.querySelectorAll(selector).length, 0);
	return {
		pwned: window.__pwned,
		scripts: inside("script") + document.body.querySelectorAll("script").length,
		images: inside("img"),
		handlers: document.querySelectorAll("[onerror], [onload], [onclick], [onmouseover]").length,
		svgHandlers: inside("svg[onload]"),
		jsLinks: document.querySelectorAll('a[href^="javascript:" i], [src^="javascript:" i]').length,
		iframes: inside("iframe"),
	};
})()`;
const CLEAN = { pwned: undefined, scripts: 0, images: 0, handlers: 0, svgHandlers: 0, jsLinks: 0, iframes: 0 };

describe("the chamber in a browser: hostile content, a phone, reload and restart", () => {
	const dir = tempDir("pier-web-safety-");
	let serve: Serve;
	let browser: Browser;
	let page: Page;
	let api: ApiClient;
	const pageErrors: string[] = [];

	before(async () => {
		({ serve, browser, page, api } = await openRig(dir.path, pageErrors));
		await signIn(page, serve.url);
	});

	after(async () => {
		await closeRig({ serve, browser });
		dir[Symbol.dispose]();
	});

	/** An HTTP client for the daemon running now (it may have moved to another port; the cookie still holds). */
	const current = () => {
		const client = new ApiClient(serve.url);
		client.cookie = api.cookie;
		client.key = api.key;
		return client;
	};
	type Hydrated = { seq: number; streaming: boolean; rows: { id: string }[]; ui: { panels: { id?: string }[] } };
	const hydrate = async (id: string) => {
		const reply = await current().call<Hydrated>("GET", `/api/pi/sessions/${id}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};

	/** The transcript shows exactly the daemon's rows, in order: nothing lost, nothing twice. */
	const sameRowsAsDaemon = async (id: string, what: string) => {
		const expected = (await hydrate(id)).rows.map((r) => r.id);
		const shown = await until(async () => {
			const ids = await rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-row-id")));
			return ids.length === expected.length ? ids : undefined;
		}, `${expected.length} rows on the page ${what}`).catch(async () =>
			rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-row-id"))),
		);
		assert.deepEqual(shown, expected, `the page shows the daemon's rows ${what}`);
	};

	const probe = async (p: Page = page) => {
		const found = (await p.evaluate(INERT_PROBE)) as typeof CLEAN;
		return { ...CLEAN, ...found, pwned: found.pwned };
	};

	test("a phone-sized screen: sign in, open a session, send a prompt, no sideways scrolling", async () => {
		const phone = await browser.newContext(PHONE);
		phone.setDefaultTimeout(STEP);
		try {
			const p = await phone.newPage();
			p.on("pageerror", (error) => pageErrors.push(`phone: ${error.message}`));
			await p.goto(serve.url);
			await p.getByTestId("login-password").waitFor();
			assert.equal(await horizontalOverflow(p), 0, "the sign-in page fits");
			await signIn(p, serve.url);
			assert.equal(await horizontalOverflow(p), 0, "the session list fits");

			await newSession(p);
			// Narrow screens show the list or the session, not both.
			assert.equal(await p.getByTestId("session-list").isVisible(), false, "the list makes room for the session");
			const box = p.getByTestId("composer");
			await box.tap();
			await box.fill("hello from a phone");
			await p.getByTestId("send").tap();
			await see(rows(p, "user"), "hello from a phone");
			await see(rows(p, "assistant"), 'it does not understand "hello from a phone"');
			await idle(p);
			await box.fill('bash {"command":"echo tool-ok from a phone with a rather long line of arguments"}');
			await p.getByTestId("send").tap();
			const call = p.locator('[data-testid="tool-call"][data-tool-name="bash"]');
			await call.waitFor();
			await see(rows(p, "assistant"), 'Done: the bash tool says: "tool-ok from a phone');
			await idle(p);
			await until(async () => (await call.getAttribute("data-status")) === "done", "the call to finish");
			await call.locator("summary").tap(); // open the arguments: wide JSON must wrap or scroll inside
			assert.equal(await horizontalOverflow(p), 0, "the session screen fits");
			for (const testid of ["composer", "send", "transcript"]) {
				const rect = await p.getByTestId(testid).boundingBox();
				assert.ok(
					rect && rect.x >= 0 && rect.x + rect.width <= 390 + 0.5,
					`${testid} is on screen: ${JSON.stringify(rect)}`,
				);
			}
			await shot(p, "07-phone-session.png");

			await p.getByRole("button", { name: "Back to sessions" }).tap();
			await p.getByTestId("session-list").waitFor();
			assert.equal(await horizontalOverflow(p), 0, "the list fits after going back");
			await shot(p, "08-phone-sessions.png");
		} finally {
			await phone.close();
		}
	});

	test("script in markdown, cards, panels, custom entries, dialogs, toasts and names never runs", async () => {
		const id = await newSession(page);
		await send(page, `${IMG_ATTR} and ${JS_LINK}`);
		const user = await see(rows(page, "user"), IMG_ATTR);
		assert.equal(await user.locator("a").count(), 0, "a javascript: link is not a link");
		await see(rows(page, "assistant"), "offline demo model");
		await idle(page);

		await send(page, "/x-card");
		const card = await see(page.locator('[data-testid="card"][data-component="markdown"]'), "card body");
		await send(page, "/x-panel");
		const panel = page.locator('[data-testid="panel"][data-panel-id="xss-panel"]');
		await see(panel, "cell");
		await send(page, "/x-custom");
		const custom = await see(rows(page, "custom"), "x.evil");
		const generic = await see(page.locator('[data-testid="card"][data-component="generic"]'), "generic");
		await send(page, "/x-dialog");
		const dialog = page.locator('[data-testid="dialog"][data-method="select"]');
		await see(dialog, `pick ${SCRIPT} ${IMG}`);
		assert.equal(await dialog.getByTestId("dialog-option").first().textContent(), `option ${IMG}`);
		assert.deepEqual(await probe(), CLEAN, "while the dialog is open");
		await dialog.locator('[data-testid="dialog-option"][data-value="plain"]').click();
		await see(page.getByTestId("toast"), "picked plain");
		const renamed = await api.call("PATCH", `/api/pi/sessions/${id}`, { name: `name ${SCRIPT} ${IMG}` });
		assert.equal(renamed.status, 200);
		await see(page.locator(`[data-testid="session-item"][data-session-id="${id}"]`), `name ${SCRIPT} ${IMG}`);
		await send(page, "/x-ui");
		const toast = await see(page.getByTestId("toast"), "toast <script>");

		// The daemon hands the payloads over verbatim: making them harmless is the page's job.
		const view = await api.call<{ rows: { kind: string; card?: { title?: string } }[]; ui: { title?: string } }>(
			"GET",
			`/api/pi/sessions/${id}`,
		);
		assert.ok(view.body.rows.some((r) => r.card?.title === `card title ${SCRIPT} ${IMG}`));
		assert.equal(view.body.ui.title, `title ${IMG}`);

		// Shown as text, every character of it.
		assert.match((await user.textContent()) ?? "", /<img src=x onerror="window.__pwned=1"> and x/);
		assert.equal(
			await card.locator(".card-title").textContent(),
			`card title ${SCRIPT} ${IMG}`,
			"a card title is text",
		);
		const body = (await card.locator(".card-body").textContent()) ?? "";
		assert.ok(body.includes(`card body ${SCRIPT} ${IMG}`), body);
		assert.ok(body.includes('<svg onload="window.__pwned=6"></svg>'), body);
		assert.equal(await card.locator(".card-body a").count(), 0, "the javascript: link lost its href");
		assert.match((await card.getByTestId("card-action").textContent()) ?? "", /act <img src=x onerror/);
		assert.equal(await panel.locator(".card-title").textContent(), `panel title ${SCRIPT} ${IMG}`);
		assert.equal(await panel.locator("th").first().textContent(), `col ${IMG}`);
		assert.equal(await panel.locator("td").first().textContent(), `cell ${SCRIPT} ${IMG}`);
		assert.ok(((await custom.locator("pre").textContent()) ?? "").includes(`custom data ${SCRIPT} ${IMG}`));
		assert.ok(((await generic.textContent()) ?? "").includes(`generic ${SCRIPT} ${IMG}`));
		assert.equal(await toast.textContent(), `toast ${SCRIPT} ${IMG}`);
		await see(page.getByTestId("status-bar"), `status ${SCRIPT} ${IMG}`);
		await see(page.getByTestId("session-title"), `title ${IMG}`);

		// A broken image would have fired by now; nothing that could run script made it into the page.
		await page.waitForLoadState("load");
		assert.deepEqual(await probe(), CLEAN);

		// The same session rendered from the daemon's view (hydration) rather than from live events.
		await page.reload();
		await see(rows(page, "user"), IMG_ATTR);
		await see(page.locator('[data-testid="card"][data-component="markdown"]'), "card body");
		await see(panel, "cell");
		assert.deepEqual(await probe(), CLEAN);
		await dismissToasts(page);
	});

	test("a page reload and daemon restarts keep the live panels; the badge follows the daemon", async () => {
		const id = await newSession(page);
		await send(page, "hello"); // pi writes the session file once there is an answer
		await see(rows(page, "assistant"), "offline demo model");
		await idle(page);
		await send(page, "/t-panel jobs first");
		const panel = page.locator('[data-testid="panel"][data-panel-id="jobs"]');
		await see(panel, "first");

		await page.reload();
		assert.equal(new URL(page.url()).searchParams.get("s"), id, "the reload reopens the session");
		await see(panel, "first");
		await sameRowsAsDaemon(id, "after a reload");
		const badge = page.getByTestId("connection-state");
		await see(badge, /^live$/);

		// Down: the open page says so. Up again on the same address: it reconnects by itself.
		const port = new URL(serve.url).port;
		assert.equal(await serve.stop(), 0, serve.output());
		await see(badge, /^reconnecting$/);
		serve = await startChamber(dir.path, ["--port", port]);
		assert.equal(new URL(serve.url).port, port);
		await badge.filter({ hasText: /^live$/ }).waitFor({ timeout: 45_000 });
		await see(panel, "first");
		// The reconnected page follows the restarted session's events.
		await send(page, "/t-panel jobs second");
		await see(panel, "second");
		await sameRowsAsDaemon(id, "after the daemon came back");

		// Restarted on another port: another origin, whose storage has no browser key, so the page signs in again.
		// The cookie still reaches it (cookies ignore the port) but alone it is refused, as it is for any other
		// server on this host (test/hostile/cookie-replay.test.ts).
		assert.equal(await serve.stop(), 0, serve.output());
		serve = await startChamber(dir.path);
		assert.notEqual(new URL(serve.url).port, port);
		await page.goto(`${serve.url}?s=${encodeURIComponent(id)}`);
		await page.getByTestId("login-password").waitFor();
		await signIn(page, `${serve.url}?s=${encodeURIComponent(id)}`);
		await see(panel, "second");
		await see(badge, /^live$/);
		await send(page, "/t-panel jobs third");
		await see(panel, "third");
		// The transcript keeps every version of the panel: earlier ones folded, the latest a marker that opens the
		// side pane, where the panel shows in full (once).
		const jobCards = rows(page, "card").filter({ hasText: "Panel jobs" });
		await until(async () => ((await jobCards.count()) === 3 ? true : undefined), "three versions of the panel");
		assert.equal(await jobCards.locator("details.superseded").count(), 2, "two earlier versions, folded");
		await jobCards.last().getByTestId("panel-marker").click();
		await see(panel, "third");
		assert.equal(await page.locator('[data-testid="card"]').filter({ hasText: "third" }).count(), 1);
		await see(rows(page, "user"), "hello");
		await sameRowsAsDaemon(id, "on the restarted daemon's new port");
	});

	// A cursor from before a restart must never match the new run's numbers (each run numbers above the last):
	// the page resyncs from a snapshot instead of silently missing what the new run published below its cursor.
	test("after a daemon restart, a page that reconnects late catches up with what happened meanwhile", async () => {
		const id = await newSession(page);
		await send(page, "hello");
		await see(rows(page, "assistant"), "offline demo model");
		await idle(page);
		await send(page, "/t-panel jobs first");
		const jobs = page.locator('[data-testid="panel"][data-panel-id="jobs"]');
		await see(jobs, "first");
		const cursor = (await hydrate(id)).seq;
		assert.ok(cursor > 10, `the page holds a cursor well into the stream (${cursor})`);

		// This browser is away (a phone asleep, a flaky network) while the daemon restarts and another device works.
		const away = "**/api/pi/events**";
		await page.route(away, (route) => route.abort());
		const port = new URL(serve.url).port;
		assert.equal(await serve.stop(), 0, serve.output());
		serve = await startChamber(dir.path, ["--port", port]);
		const other = current();
		await hydrate(id);
		assert.equal(
			(await other.call("POST", `/api/pi/sessions/${id}/command`, { command: "t-panel", args: "fresh meanwhile" }))
				.status,
			202,
		);
		let meanwhile = await hydrate(id);
		for (let i = 0; meanwhile.seq <= cursor + 5; i++) {
			assert.ok(i < 10, `the restarted daemon's stream passes the old cursor (at ${meanwhile.seq} of ${cursor})`);
			assert.equal((await other.call("POST", `/api/pi/sessions/${id}/prompt`, { text: `meanwhile ${i}` })).status, 202);
			meanwhile = await until(async () => {
				const v = await hydrate(id);
				return v.streaming ? undefined : v;
			}, "the other device's answer");
		}
		assert.ok(meanwhile.ui.panels.some((p) => p.id === "fresh"));

		// Back online: the page reconnects by itself and must show what the other device did.
		await page.unroute(away);
		await page
			.getByTestId("connection-state")
			.filter({ hasText: /^live$/ })
			.waitFor({ timeout: 45_000 });
		await sameRowsAsDaemon(id, "after reconnecting to a daemon that restarted while the page was away");
		await see(page.locator('[data-testid="panel"][data-panel-id="fresh"]'), "meanwhile");
	});

	test("the pages threw no uncaught errors", () => {
		assert.deepEqual(pageErrors, []);
	});
});
