/**
 * The trust card at 1280×800 and 390×844: nothing of it sits outside the window (a long parent folder wraps),
 * it says once what the project has and names the parent folder once; after "Do not trust" the new session shows
 * the line `pier run` prints, saying what was skipped.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	DESKTOP,
	dismissToasts,
	launchBrowser,
	PHONE,
	rows,
	STEP,
	see,
	shot,
	signIn,
	startChamber,
} from "./browser-helpers.js";

/** A project with an extension and an AGENTS.md, under a parent folder with a long name. */
function project(root: string, name: string): string {
	const dir = join(root, "a-parent-folder-with-a-rather-long-name-that-does-not-fit-on-a-phone", name);
	mkdirSync(join(dir, ".pi", "extensions"), { recursive: true });
	writeFileSync(join(dir, ".pi", "extensions", "hello.ts"), "export default function () {}\n");
	writeFileSync(join(dir, "AGENTS.md"), "Be brief.\n");
	return dir;
}

/** Every box in the card: [left, right] in CSS pixels. */
function cardBoxes(page: Page): Promise<Array<{ what: string; left: number; right: number }>> {
	return page.getByTestId("trust-card").evaluate((card) =>
		[card, ...card.querySelectorAll("*")].map((el) => {
			const box = el.getBoundingClientRect();
			return { what: `${el.tagName} ${(el.textContent ?? "").slice(0, 40)}`, left: box.left, right: box.right };
		}),
	);
}

describe("the trust card", () => {
	const dir = tempDir("pier-trust-card-ui-");
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
		["1280", DESKTOP, 1280],
		["390", PHONE, 390],
	] as Array<[string, BrowserContextOptions, number]>) {
		test(`at ${label} px it fits, says each thing once, and Do not trust leaves the skipped line`, async () => {
			const context = await browser.newContext(size);
			const page = await context.newPage();
			await signIn(page, serve.url);
			const cwd = project(dir.path, `project-${label}`);
			await page.getByTestId("new-session-cwd").fill(cwd);
			await page.getByTestId("new-session").click();
			const card = page.getByTestId("trust-card");
			await card.waitFor({ timeout: STEP });
			await see(page.getByTestId("trust-detail"), ".pi/extensions");

			for (const box of await cardBoxes(page)) {
				assert.ok(box.left >= 0, `${box.what} starts at x = ${box.left}`);
				assert.ok(box.right <= width, `${box.what} ends at x = ${box.right}, past ${width}`);
			}
			const text = (await card.textContent()) ?? "";
			const count = (needle: string) => text.split(needle).length - 1;
			assert.equal(count("has files pier would load"), 1, text);
			assert.equal(
				count("a-parent-folder-with-a-rather-long-name"),
				2,
				`the project and its parent, once each: ${text}`,
			);
			assert.equal(count(".pi/extensions"), 1, text);
			await dismissToasts(page);
			await shot(page, `trust-card-${label}.png`);

			await page.getByTestId("trust-no").click();
			await page.getByTestId("composer").waitFor({ timeout: STEP });
			const line = await see(rows(page, "error"), "is not trusted");
			const said = (await line.textContent()) ?? "";
			assert.match(said, /skipped .*\.pi\/extensions/);
			assert.match(said, /pier trust /);
			assert.ok(!said.includes("`"), said);
			await context.close();
		});
	}
});
