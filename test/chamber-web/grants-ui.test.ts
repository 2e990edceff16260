/** The chamber's Grants panel in a real browser: it shows the installed QuickJS extension and grants it. */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import type { Serve } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { account, DESKTOP, launchBrowser, STEP, signIn, startChamber, until } from "./browser-helpers.js";

describe("the Grants panel", () => {
	const dir = tempDir("pier-grants-ui-");
	const agentDir = join(dir.path, "agent");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		cpSync(join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite"), join(agentDir, "extensions", "qjs-rewrite"), {
			recursive: true,
		});
		serve = await startChamber(dir.path);
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("a checkbox grants run, and the CLI sees it", async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await account(page, "grants");
		const row = page.getByTestId("grants-qjs-rewrite");
		await row.waitFor({ timeout: STEP });
		assert.match((await row.textContent()) ?? "", /qjs-rewrite\s*\(quickjs\)/);
		const run = row.getByLabel("run");
		assert.equal(await run.isChecked(), false);
		await run.check();
		await until(() => {
			const settings = JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
			return settings.extensionHost?.grants?.["qjs-rewrite"]?.grants?.includes("run");
		}, "the grant in settings.json");
		const listed = await runPier(["grant"], { agentDir });
		assert.equal(listed.stdout, `qjs-rewrite: run (${join(agentDir, "extensions", "qjs-rewrite")})\n`);
		// The row names the directory the grant is bound to.
		assert.ok(((await row.textContent()) ?? "").includes(join(agentDir, "extensions", "qjs-rewrite")));
		if (process.env.PIER_SCREENSHOT_DIR)
			await page.screenshot({ path: join(process.env.PIER_SCREENSHOT_DIR, "grants.png") });
		await context.close();
	});

	test("a QuickJS extension the daemon loads with -e is listed, not 'no extensions'", async () => {
		const eDir = tempDir("pier-grants-e-");
		const loaded = join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite");
		const other = await startChamber(eDir.path, ["--no-examples", "-e", loaded]);
		try {
			const context = await browser.newContext(DESKTOP);
			const page = await context.newPage();
			await signIn(page, other.url);
			await account(page, "grants");
			const row = page.getByTestId("grants-qjs-rewrite");
			await row.waitFor({ timeout: STEP });
			assert.match((await row.textContent()) ?? "", /qjs-rewrite\s*\(quickjs\)/);
			assert.equal(await page.getByTestId("grants-none").count(), 0);
			await context.close();
		} finally {
			await other.stop();
			eDir[Symbol.dispose]();
		}
	});
});
