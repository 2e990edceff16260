/**
 * Low findings: bidi and control characters showed raw in names and cards, and one long unbroken string stretched
 * the layout. Guarantee: in session names, titles, card text, statuses and command lists they show as visible
 * escapes (`\u202E`), and a 5,000-character string wraps inside the page, on a desktop and on a phone.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	apiFor,
	DESKTOP,
	horizontalOverflow,
	launchBrowser,
	newSession,
	PASSWORD,
	PHONE,
	STEP,
	see,
	send,
	signIn,
} from "../chamber-web/browser-helpers.js";
import { type ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const SHOWN = "invoice\\u202Efdp.exe\\u0007\\u001B[31m\\u2066x\\u2069";
// Raw controls (innerText itself uses \n and \t) and bidi characters.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

describe("hostile text: escapes for what would hide, wrapping for what would stretch", () => {
	const dir = tempDir("pier-hostile-text-");
	let serve: Serve;
	let browser: Browser;
	let page: Page;
	let api: ApiClient;

	before(async () => {
		serve = await startServe(
			[
				"-e",
				join(REPO_ROOT, "test/fixtures/hostile/text-ext.ts"),
				"--state-dir",
				join(dir.path, "state"),
				"--ui-password",
				PASSWORD,
			],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		api = await apiFor(serve.url);
		await signIn(page, serve.url);
	});

	after(async () => {
		await browser?.close().catch(() => {});
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("a session name, a card, a status and a command description show U+202E and controls as escapes", async () => {
		const id = await newSession(page);
		await send(page, "/text-bidi");
		const card = await see(page.getByTestId("card"), `card ${SHOWN}`);
		assert.equal(await card.locator(".card-title").textContent(), `card ${SHOWN}`);
		assert.match(
			(await card.locator("dt").textContent()) ?? "",
			new RegExp(`label ${SHOWN.replace(/[\\[]/g, "\\$&")}`),
		);
		await see(page.locator(`[data-testid="session-item"][data-session-id="${id}"]`), `name ${SHOWN}`);
		await see(page.getByTestId("session-title"), `name ${SHOWN}`);
		await see(page.getByTestId("status-bar"), `status ${SHOWN}`);
		// The daemon keeps the name as written; only the screen escapes it.
		const reply = await api.call<{ session: { name: string } }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(reply.body.session.name, `name invoice\u202Efdp.exe\u0007\u001B[31m\u2066x\u2069`);
		// Nothing on the page carries a raw control or bidi character any more.
		const text = (await page.evaluate("document.body.innerText")) as string;
		assert.doesNotMatch(text, HIDDEN, "no raw control or bidi character in the page's text");
		assert.match(await page.title(), /name invoice\\u202Efdp/);
		// The command list shows its description escaped too.
		const box = page.getByTestId("composer");
		await box.fill("/text-b");
		await see(page.locator(".suggestion-desc"), "bidi\\u202Edescription");
		await box.fill("");
	});

	test("the @ list shows a name with a Unicode space apart from its ASCII twin", async () => {
		writeFileSync(join(dir.path, "shot\u00a0.png"), "x");
		writeFileSync(join(dir.path, "shot .png"), "y");
		await newSession(page);
		const box = page.getByTestId("composer");
		await box.fill("@shot");
		const list = page.getByTestId("file-suggestions");
		await see(list, "@shot\\u00A0.png");
		await see(list, "@shot .png");
		assert.doesNotMatch((await list.textContent()) ?? "", /\u00a0/);
		await box.fill("");
	});

	for (const [label, options] of [
		["desktop", DESKTOP],
		["phone", PHONE],
	] as const) {
		test(`5,000 characters with nowhere to break do not widen the page (${label})`, async () => {
			const context = await browser.newContext(options);
			context.setDefaultTimeout(STEP);
			try {
				const p = await context.newPage();
				await signIn(p, serve.url);
				await newSession(p);
				await send(p, "/text-long");
				await p.locator('[data-testid="card"][data-component="kv"]').last().waitFor();
				await p.getByTestId("toast").first().waitFor();
				assert.equal(await horizontalOverflow(p), 0, "the page does not scroll sideways");
				// Nothing the text landed in is wider than its box, nor reaches past the viewport.
				const boxes =
					(await p.evaluate(`[...document.querySelectorAll('[data-testid="card"], .card-body, .card-title, .kv dt, .kv dd, td, [data-testid="status-bar"], [data-testid="toast"], [data-testid="session-title"], [data-testid="session-item"], [data-testid="transcript"]')]
					.map((el) => ({ what: el.getAttribute("data-testid") || el.className || el.tagName, scroll: el.scrollWidth, client: el.clientWidth, right: el.getBoundingClientRect().right }))`)) as {
						what: string;
						scroll: number;
						client: number;
						right: number;
					}[];
				const viewport = options.viewport!.width;
				assert.ok(boxes.length >= 10, `found the boxes: ${boxes.length}`);
				for (const box of boxes) {
					assert.ok(box.right <= viewport + 0.5, `${box.what} ends inside the viewport: ${JSON.stringify(box)}`);
					// The header and the list cut a name with an ellipsis, by design; everything else wraps.
					if (box.what === "session-title" || box.what === "session-item") continue;
					assert.ok(box.scroll <= box.client + 1, `${box.what} holds its text: ${JSON.stringify(box)}`);
				}
				if (label === "desktop") {
					const list = p.getByTestId("session-list");
					const box = await list.boundingBox();
					assert.ok(box && box.width < viewport / 2, `the session list keeps its width: ${JSON.stringify(box)}`);
				}
			} finally {
				await context.close();
			}
		});
	}
});
