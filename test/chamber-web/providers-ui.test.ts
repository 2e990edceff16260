/**
 * The Providers view in a real browser: the demo model points at it; a key saved there lands in pi's
 * auth.json and that provider's models reach the picker; a custom OpenAI-compatible provider added there
 * answers a prompt from the page.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/openai-server.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	account,
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
} from "./browser-helpers.js";

describe("the Providers view", () => {
	const dir = tempDir("pier-providers-ui-");
	let serve: Serve;
	let browser: Browser;
	let server: FakeOpenAI;
	let page: Page;

	before(async () => {
		server = await startFakeOpenAI();
		serve = await startChamber(dir.path, ["--no-examples"]);
		browser = await launchBrowser();
		page = await (await browser.newContext(DESKTOP)).newPage();
		await signIn(page, serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		await server?.close();
		dir[Symbol.dispose]();
	});

	const pickerOptions = () =>
		page
			.getByTestId("model-picker")
			.locator("option")
			.evaluateAll((els) => els.map((e) => e.getAttribute("value")));

	test("the demo model's answer points at Providers; a key saved there unlocks that provider's models", async () => {
		await newSession(page);
		await send(page, "hello");
		await see(rows(page, "assistant"), "open Providers in the Account menu at the top of this page");
		await idle(page);
		// pier/demo has no reasoning: the thinking picker offers only "off".
		const levels = await page
			.getByTestId("thinking-picker")
			.locator("option")
			.evaluateAll((els) => els.map((e) => e.getAttribute("value")));
		assert.deepEqual(levels, ["off"]);
		await account(page, "providers");
		// Providers without credentials start folded: only pier's own is listed open.
		await page.getByTestId("providers-unset-toggle").waitFor({ timeout: STEP });
		assert.match(
			(await page.getByTestId("providers-unset-toggle").textContent()) ?? "",
			/^\d+ providers without credentials$/,
		);
		assert.equal(await page.getByTestId("providers-unset").isVisible(), false, "the unset ones are folded");
		assert.deepEqual(
			await page
				.getByTestId("providers-set")
				.locator('[data-testid="provider"]')
				.evaluateAll((els) => els.map((e) => e.getAttribute("data-provider"))),
			["pier"],
		);
		// The custom form is the panel's first section, not below thirty providers.
		const sections = await page
			.getByTestId("providers-panel")
			.evaluate((panel) =>
				[...panel.querySelectorAll('[data-testid="custom-provider-toggle"], [data-testid="provider-search"]')].map(
					(e) => e.getAttribute("data-testid"),
				),
			);
		assert.deepEqual(sections, ["custom-provider-toggle", "provider-search"]);
		// Search finds a folded provider; an OAuth one points at pier's own command, with no literal backticks.
		await page.getByTestId("provider-search").fill("anthropic");
		const anthropic = page.locator('[data-testid="provider"][data-provider="anthropic"]');
		await anthropic.waitFor({ timeout: STEP });
		const oauth = (await anthropic.getByTestId("provider-oauth").textContent()) ?? "";
		assert.match(oauth, /run node \S*bin\/pier\.js auth login anthropic in a terminal/);
		assert.ok(!oauth.includes("`"), oauth);
		assert.equal(await page.locator('[data-testid="provider"][data-provider="openai"]').count(), 0, "search narrows");
		await page.getByTestId("provider-search").fill("openai");
		const openai = page.locator('[data-testid="provider"][data-provider="openai"]');
		await openai.waitFor({ timeout: STEP });
		assert.equal(await openai.getAttribute("data-credentials"), "none");
		await page.getByTestId("provider-key-openai").fill("sk-from-the-page");
		await openai.getByRole("button", { name: "Save" }).click();
		await until(async () => (await openai.getAttribute("data-credentials")) === "auth.json", "the key stored");
		const auth = JSON.parse(readFileSync(join(dir.path, "agent", "auth.json"), "utf8")) as Record<
			string,
			{ key?: string }
		>;
		assert.equal(auth.openai?.key, "sk-from-the-page");
		assert.ok(!((await page.content()) ?? "").includes("sk-from-the-page"), "the page never shows the key again");
		await newSession(page);
		await until(
			async () => (await pickerOptions()).some((v) => v?.startsWith("openai/")),
			"openai models in the picker",
		);
	});

	test("a custom provider added in the page answers a prompt", async () => {
		await page.getByTestId("custom-provider-toggle").click();
		await page.getByTestId("custom-id").fill("local");
		await page.getByTestId("custom-baseUrl").fill(server.baseUrl);
		await page.getByTestId("custom-apiKey").fill("local-key");
		await page.getByTestId("custom-models").fill("local-model");
		await page.getByTestId("custom-add").click();
		// pi's verdict on the file written, next to the button.
		await see(page.getByTestId("custom-result"), "Saved: pi loads local with 1 model, 1 usable.");
		await page.getByTestId("provider-search").fill("local");
		await page.locator('[data-testid="provider"][data-provider="local"]').waitFor({ timeout: STEP });
		await account(page, "providers");
		await newSession(page);
		await until(async () => (await pickerOptions()).includes("local/local-model"), "the custom model in the picker");
		await page.getByTestId("model-picker").selectOption("local/local-model");
		await until(async () => (await page.getByTestId("model-picker").inputValue()) === "local/local-model", "switched");
		await send(page, "what is the weather in Oslo?");
		await see(rows(page, "assistant"), "The forecast tool reported");
		assert.equal(server.requests[0]?.headers.authorization, "Bearer local-key");
	});
});
