/**
 * Share links in a real browser against a real `pier serve` and the offline demo model: the owner makes a view-only
 * link from the session's Share control; a second browser context (no sign-in) opened with it sees the transcript,
 * then the owner's next turn live, and has no composer, terminal, files or changes; the same on a phone; revoking
 * the link from the owner's list ends the viewer's page.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	DESKTOP,
	dismissToasts,
	horizontalOverflow,
	launchBrowser,
	newSession,
	PASSWORD,
	PHONE,
	rows,
	runTurn,
	STEP,
	see,
	shot,
	signIn,
} from "./browser-helpers.js";

describe("share links in the browser", () => {
	const dir = tempDir("pier-share-ui-");
	let serve: Serve;
	let browser: Browser;
	let owner: Page;
	let link: string;
	const pageErrors: string[] = [];

	before(async () => {
		serve = await startServe(
			["--no-examples", "--model", "pier/demo", "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		owner = await context.newPage();
		owner.on("pageerror", (error) => pageErrors.push(error.message));
		await signIn(owner, serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const viewer = async (options: typeof DESKTOP) => {
		const context = await browser.newContext(options);
		context.setDefaultTimeout(STEP);
		const page = await context.newPage();
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await page.goto(link);
		await page.getByTestId("share-view").waitFor();
		return page;
	};

	test("desktop: a view link shows the session live and read-only, and ends when revoked", async () => {
		const id = await newSession(owner);
		await runTurn(owner, "first words for the viewer");
		await owner.getByTestId("share").click();
		await owner.getByTestId("share-mode").selectOption("view");
		await owner.getByTestId("share-create").click();
		link = await owner.getByTestId("share-url").inputValue();
		assert.match(link, new RegExp(`^${serve.url}\\?s=${id}#share=pier_sh_`));
		await see(owner.getByTestId("share-item"), /View only/);

		const page = await viewer(DESKTOP);
		assert.equal(new URL(page.url()).hash, "", "the token leaves the address bar");
		await see(page.getByTestId("share-badge"), /View only/);
		await see(rows(page, "user"), "first words for the viewer");
		await see(page.getByTestId("connection-state"), "live");
		for (const absent of [
			"composer",
			"send",
			"terminal-toggle",
			"files-open",
			"changes-open",
			"share",
			"session-list",
		]) {
			assert.equal(await page.getByTestId(absent).count(), 0, `no ${absent} on a view link`);
		}

		await runTurn(owner, "second words, live");
		await see(rows(page, "user"), "second words, live");
		await dismissToasts(owner);
		await shot(page, "share-desktop.png");

		const phone = await viewer(PHONE);
		await see(rows(phone, "user"), "second words, live");
		assert.equal(await phone.getByTestId("composer").count(), 0);
		assert.equal(await horizontalOverflow(phone), 0, "nothing sticks out sideways at 390 px");
		await shot(phone, "share-phone.png");

		await owner.getByTestId("share-revoke").first().click();
		await page.getByTestId("share-ended").waitFor();
		await phone.getByTestId("share-ended").waitFor();

		// A control link drives this session from another device: a composer, but no terminal and no sharing on.
		await owner.getByTestId("share-mode").selectOption("control");
		await owner.getByTestId("share-create").click();
		await see(owner.getByTestId("share-item"), /Control/);
		link = await owner.getByTestId("share-url").inputValue();
		const second = await viewer(DESKTOP);
		await see(second.getByTestId("share-badge"), /Shared control/);
		await runTurn(second, "typed on the second device");
		await see(rows(owner, "user"), "typed on the second device");
		for (const absent of ["terminal-toggle", "share", "session-list"]) {
			assert.equal(await second.getByTestId(absent).count(), 0, `no ${absent} on a control link`);
		}

		await dismissToasts(owner);
		await shot(owner, "share-panel-desktop.png");
		// The owner's Share control at 390×844: the panel fits the screen, the list and Revoke within reach.
		await owner.setViewportSize({ width: 390, height: 844 });
		await dismissToasts(owner);
		const body = owner.getByTestId("share-body");
		await body.waitFor();
		const box = await body.boundingBox();
		assert.ok(
			box && box.x >= 0 && box.x + box.width <= 390 && box.y >= 0,
			`inside the phone's screen: ${JSON.stringify(box)}`,
		);
		await owner.getByTestId("share-revoke").first().waitFor();
		assert.equal(await horizontalOverflow(owner), 0);
		await shot(owner, "share-panel-phone.png");
		assert.deepEqual(pageErrors, []);
	});
});
