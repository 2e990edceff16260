/**
 * The installable app and its notifications in a real Chromium against a real `pier serve`: Chromium's own
 * installability check (CDP `Page.getInstallabilityErrors`), a run that finishes while the page is hidden shown by
 * the service worker (`registration.getNotifications()`), a confirm answered from its notification's Yes, a click
 * that opens the session, the settings panel at 1280×800 and 390×844, and the page opened again with the daemon
 * stopped, from the worker's cache, saying the daemon is down.
 *
 * One persistent profile: Chromium reports every incognito context (playwright's `newContext`) as not installable.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type BrowserContext, chromium, type Page, type Worker } from "playwright-core";
import { noticeOf } from "../../src/chamber/push/notice.js";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	horizontalOverflow,
	PHONE,
	STEP,
	shot,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

type Shown = { title: string; body: string; tag: string; actions: string[]; data: { sessionId: string } };

describe("the installable app and its notifications", () => {
	const dir = tempDir("pier-pwa-ui-");
	let serve: Serve;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;
	let worker: Worker;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		serve = await startChamber(dir.path);
		context = await chromium.launchPersistentContext(join(dir.path, "profile"), {
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
			...DESKTOP,
			permissions: ["notifications"],
		});
		context.setDefaultTimeout(STEP);
		page = context.pages()[0] ?? (await context.newPage());
		await signIn(page, serve.url);
		api = await apiFor(serve.url);
		worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker", { timeout: STEP }));
		// The worker claims the page once it has cached the shell.
		await page.waitForFunction("navigator.serviceWorker.controller !== null", undefined, { timeout: STEP });
	});
	after(async () => {
		await context?.close().catch(() => {});
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const shown = (tag: string) =>
		worker.evaluate(
			`self.registration.getNotifications({ tag: ${JSON.stringify(tag)} }).then((list) => list.map((n) => ({
				title: n.title, body: n.body, tag: n.tag, actions: (n.actions || []).map((a) => a.title), data: n.data,
			})))`,
		) as Promise<Shown[]>;

	/** A click on the notification, as the system delivers it to the worker (`action`: one of its buttons). */
	const click = (tag: string, action = "") =>
		worker.evaluate(`self.registration.getNotifications({ tag: ${JSON.stringify(tag)} }).then(([notification]) => {
			self.dispatchEvent(new NotificationEvent("notificationclick", { notification, action: ${JSON.stringify(action)} }));
		})`);

	async function namedSession(name: string): Promise<string> {
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		const id = created.body.session.id;
		assert.equal((await api.call("PATCH", `/api/pi/sessions/${id}`, { name })).status, 200);
		return id;
	}

	/** The page goes to the background: the tab is hidden, as when the user switches to another app. */
	async function hide(): Promise<void> {
		await page.evaluate(`(() => {
			Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
			Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
			document.dispatchEvent(new Event("visibilitychange"));
		})()`);
	}

	test("the manifest and the service worker meet Chromium's installability checks", async () => {
		const cdp = await context.newCDPSession(page);
		const manifest = (await cdp.send("Page.getAppManifest")) as { errors: unknown[]; url: string };
		assert.deepEqual(manifest.errors, []);
		assert.match(manifest.url, /\/manifest\.webmanifest$/);
		const { installabilityErrors } = (await cdp.send("Page.getInstallabilityErrors")) as {
			installabilityErrors: { errorId: string }[];
		};
		assert.deepEqual(installabilityErrors, []);
		await cdp.detach();
		// The check is real: a page of the same origin without the manifest is not installable.
		const plain = await context.newPage();
		await plain.goto(new URL("/icons/icon-192.png", serve.url).href);
		const control = await context.newCDPSession(plain);
		const refused = (await control.send("Page.getInstallabilityErrors")) as {
			installabilityErrors: { errorId: string }[];
		};
		assert.ok(
			refused.installabilityErrors.some((e) => e.errorId === "no-manifest"),
			JSON.stringify(refused.installabilityErrors),
		);
		await plain.close();
		const served = await fetch(new URL("/manifest.webmanifest", serve.url));
		assert.equal(served.headers.get("content-type"), "application/manifest+json");
		const body = (await served.json()) as { display: string; icons: { sizes: string; purpose: string }[] };
		assert.equal(body.display, "standalone");
		assert.deepEqual(
			body.icons.map((i) => `${i.sizes} ${i.purpose}`),
			["192x192 any", "512x512 any", "512x512 maskable"],
		);
		for (const scheme of ["light", "dark"]) {
			const meta = page.locator(`meta[name="theme-color"][media="(prefers-color-scheme: ${scheme})"]`);
			assert.equal(await meta.count(), 1, `a theme colour for ${scheme}`);
		}
	});

	test("the Notifications panel turns notifications on for this device", async () => {
		await page.getByTestId("account-menu").click();
		await page.getByTestId("notifications").click();
		const panel = page.getByTestId("notifications-panel");
		await panel.getByTestId("notify-finished").waitFor();
		assert.equal(await panel.getByTestId("notify-finished").isChecked(), true);
		assert.equal(await panel.getByTestId("notify-waiting").isChecked(), true);
		// Headless Chromium has no push service: the panel says so, and the page's own notifications go on.
		await panel.getByTestId("notify-push-on").click();
		await panel.getByTestId("notify-problem").waitFor();
		await shot(page, "notifications-desktop.png");
		await panel.getByTestId("notify-waiting").click();
		await until(async () => !(await panel.getByTestId("notify-waiting").isChecked()), "waiting switched off");
		await panel.getByTestId("notify-waiting").click();
		await until(() => panel.getByTestId("notify-waiting").isChecked(), "waiting switched on again");
	});

	test("a run that finishes while the page is hidden is a notification from the service worker", async () => {
		const id = await namedSession("Nightly build");
		await hide();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		const [notification] = await until(async () => {
			const list = await shown(`${id}:finished`);
			return list.length > 0 ? list : undefined;
		}, "the notification of the finished run");
		assert.equal(notification?.title, "Run finished");
		assert.equal(notification?.body, "Nightly build: the run finished.");
		assert.equal(notification?.data.sessionId, id);

		// Clicked: the open page shows that session.
		await click(`${id}:finished`);
		await until(() => new URL(page.url()).searchParams.get("s") === id, "the session opened from the notification");
		await page.getByTestId("composer").waitFor();
	});

	test("a Web Push message is shown by the worker as the daemon wrote it", async () => {
		// What the daemon sends (test/chamber/push.test.ts decrypts it at a local push service), as the browser hands
		// it to the worker once decrypted.
		const notice = noticeOf("finished", { id: "pushed-session", name: "Release notes" });
		await worker.evaluate(
			`self.dispatchEvent(new PushEvent("push", { data: ${JSON.stringify(JSON.stringify(notice))} }))`,
		);
		const [notification] = await until(async () => {
			const list = await shown(notice.tag);
			return list.length > 0 ? list : undefined;
		}, "the pushed notification");
		assert.equal(notification?.body, "Release notes: the run finished.");
		assert.deepEqual(notification?.actions, []);
	});

	test("a confirm is answered from its notification's Yes", async () => {
		const id = await namedSession("Ask before deploying");
		const stream = api.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot" || e.event === "session.commands", "the session");
		await hide();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "t-confirm" })).status, 202);
		const [notification] = await until(async () => {
			const list = await shown(`${id}:waiting`);
			return list.length > 0 ? list : undefined;
		}, "the notification of the question");
		assert.equal(notification?.body, "Ask before deploying is waiting on you: Sure?");
		assert.deepEqual(notification?.actions, ["Yes", "No"]);
		await click(`${id}:waiting`, "yes");
		await stream.waitFor((e) => e.event === "extension.dialog.dismiss" && e.payload.reason === "answered", "answered");
		await stream.waitFor((e) => {
			const row = e.payload.row as { content?: { confirmed?: boolean } } | undefined;
			return e.event === "transcript.row" && row?.content?.confirmed === true;
		}, "the extension heard Yes");
		stream.close();
	});

	test("the panel on a phone", async () => {
		// One profile holds the desktop and the phone page (an incognito context is never installable): the phone is
		// its viewport.
		const phone = await context.newPage();
		await phone.setViewportSize({ width: PHONE.viewport?.width ?? 390, height: PHONE.viewport?.height ?? 844 });
		await phone.goto(serve.url);
		await phone.getByTestId("account-menu").click();
		await phone.getByTestId("notifications").click();
		await phone.getByTestId("notify-finished").waitFor();
		assert.equal(await horizontalOverflow(phone), 0);
		await shot(phone, "notifications-phone.png");
		await phone.close();
	});

	test("a new build's worker deletes the caches of older builds when it activates", async () => {
		const old = "pier-shell-0123456789abcdef";
		await worker.evaluate(`caches.open(${JSON.stringify(old)}).then((c) => c.put("/", new Response("an old shell")))`);
		const names = () => worker.evaluate("caches.keys()") as Promise<string[]>;
		const current = (await names()).filter((n) => n !== old);
		assert.equal(current.length, 1, "this build's cache");
		await worker.evaluate(`self.dispatchEvent(new ExtendableEvent("activate"))`);
		await until(async () => !(await names()).includes(old), "the old build's cache deleted");
		assert.deepEqual(await names(), current, "this build's cache stays");
	});

	test("opened with the daemon stopped, the page comes from the worker's cache and says the daemon is down", async () => {
		const cached = (await worker.evaluate(`caches.keys().then(async (names) => (await Promise.all(
			names.map(async (name) => (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname)),
		)).flat())`)) as string[];
		assert.ok(cached.includes("/") && cached.includes("/manifest.webmanifest"), cached.join(" "));
		assert.deepEqual(
			cached.filter((path) => path.startsWith("/api/")),
			[],
			"nothing of the API is cached",
		);
		assert.equal(await serve.stop(), 0);
		await page.goto(new URL("/", serve.url).href);
		await page.getByText("the pier daemon is down").waitFor();
		const assets = (await page.evaluate(
			"performance.getEntriesByType('resource').filter((e) => e.name.includes('/assets/')).length",
		)) as number;
		assert.ok(assets > 0, "the page's scripts came (from the cache)");
	});
});
