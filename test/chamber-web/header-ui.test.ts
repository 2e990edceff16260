/**
 * The header at 390×844: the session title gets the row (the account actions are one menu button), and the menu
 * lists Providers, Grants, Pair a device and Sign out, each with its own icon from the page's set (drawn, none
 * repeated), inside the window. At 1280×800 the same menu opens each panel under the header.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContextOptions } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	account,
	DESKTOP,
	dismissToasts,
	launchBrowser,
	newSession,
	PHONE,
	STEP,
	send,
	idle,
	shot,
	signIn,
	startChamber,
} from "./browser-helpers.js";

describe("the header and its account menu", () => {
	const dir = tempDir("pier-header-ui-");
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

	for (const [label, size, width] of [
		["390", PHONE, 390],
		["1280", DESKTOP, 1280],
	] as Array<[string, BrowserContextOptions, number]>) {
		test(`at ${label} px the title has the row, and one menu holds the account actions`, async () => {
			const context = await browser.newContext(size);
			const page = await context.newPage();
			await signIn(page, serve.url);
			await newSession(page);
			await send(page, "hello");
			await idle(page);
			await dismissToasts(page);

			const title = await page.getByTestId("session-title").boundingBox();
			assert.ok(title, "the title is shown");
			// Back, the connection badge and the menu button take what is left: the title keeps most of the row.
			assert.ok(title.width >= width * 0.4, `the title is ${title.width} px wide of ${width}`);

			await page.getByTestId("account-menu").click();
			const items = page.getByTestId("account-menu-items").getByRole("menuitem");
			assert.deepEqual(await items.allInnerTexts(), [
				"Providers",
				"Grants",
				"Permissions",
				"Audit",
				"Packages",
				"Pair a device",
				"Notifications",
				"Sign out",
			]);
			const glyphs = await items.evaluateAll((els) =>
				els.map((el) => {
					const path = el.querySelector("svg path");
					const box = el.querySelector("svg")?.getBoundingClientRect();
					return { d: path?.getAttribute("d") ?? "", width: box?.width ?? 0 };
				}),
			);
			for (const g of glyphs) assert.ok(g.d && g.width > 0, "each item has a drawn icon");
			assert.equal(new Set(glyphs.map((g) => g.d)).size, glyphs.length, "no two items share an icon");
			const menu = await page.getByTestId("account-menu-items").boundingBox();
			assert.ok(menu && menu.x >= 0 && menu.x + menu.width <= width, `the menu fits: ${JSON.stringify(menu)}`);
			await shot(page, `header-menu-${label}.png`);

			await page.getByTestId("providers").click();
			const panel = await page.getByTestId("providers-panel").boundingBox();
			assert.ok(panel && panel.x >= 0 && panel.x + panel.width <= width, `the panel fits: ${JSON.stringify(panel)}`);
			await page.getByTestId("provider-search").waitFor({ timeout: STEP });
			await shot(page, `providers-${label}.png`);
			await account(page, "pair-device");
			await page.getByTestId("pairing-loopback").waitFor({ timeout: STEP });
			assert.equal(await page.getByTestId("providers-panel").count(), 0, "one panel at a time");
			await shot(page, `pair-device-${label}.png`);
			await context.close();
		});
	}

	test("the first screen fetches only the code it draws; a panel or sheet fetches its own on first use", async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		const scripts: string[] = [];
		page.on("request", (r) => {
			const path = new URL(r.url()).pathname;
			if (path.endsWith(".js")) scripts.push(path.slice(path.lastIndexOf("/") + 1));
		});
		const fetched = (name: string) => scripts.some((s) => s.startsWith(`${name}-`));
		const later = [
			"qrcode",
			"syntax",
			"TerminalSheet",
			"FilesSheet",
			"TreeSheet",
			"McpAppFrame",
			"Providers",
			"Grants",
			"PairDevice",
		];
		const notYet = (names: string[], where: string) => {
			for (const name of names)
				assert.equal(fetched(name), false, `${name} is not fetched for ${where} (fetched: ${scripts.join(", ")})`);
		};
		await signIn(page, serve.url);
		notYet(["markdown", ...later], "the session list");
		// Opening a session fetches the transcript's markdown alongside its rows, and nothing else it does not draw.
		await newSession(page);
		notYet(later, "a session");
		await account(page, "grants");
		await page.getByTestId("grants-panel").locator(".grants-body").waitFor({ timeout: STEP });
		assert.ok(fetched("Grants"), "the Grants panel's code arrives when it is opened");
		await page.keyboard.press("Escape");
		await page.getByTestId("files-open").click();
		await page.getByTestId("files-tree").waitFor({ timeout: STEP });
		assert.ok(fetched("FilesSheet"), "the file browser's code arrives when it is opened");
		await context.close();
	});
});
