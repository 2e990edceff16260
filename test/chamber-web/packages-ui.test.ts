/**
 * The Packages view in a real browser against a real `pier serve` and a stand-in npm registry: a pi package is
 * found, its README shown (sanitized: the README's script does not run), inspected, installed through the grant
 * prompt (the QuickJS extension's grant lands bound to the installed code), switched off and on, and removed;
 * desktop and phone screenshots.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { type CatalogRegistry, startCatalogRegistry } from "../helpers/catalog-registry.js";
import { npmEnv, type Registry } from "../helpers/npm-registry.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	DESKTOP,
	horizontalOverflow,
	launchBrowser,
	PASSWORD,
	PHONE,
	STEP,
	see,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";
import { seriousViolations } from "./axe.js";

describe("the Packages view in the browser", () => {
	const dir = tempDir("pier-packages-ui-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	let registry: CatalogRegistry;
	let serve: Serve;
	let browser: Browser;
	const settings = () => JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(project, { recursive: true });
		registry = await startCatalogRegistry(dir.path);
		registry.publish(
			{
				name: "pi-sky",
				version: "1.0.0",
				description: "Sky hooks for pi",
				keywords: ["pi-package"],
				readme: '# pi-sky\n\nWatches the **sky**.\n\n<img src=x onerror="window.__pwned = 1">\n',
			},
			{
				"extensions/sky/pi-extension.json": JSON.stringify({
					schemaVersion: 1,
					id: "qjs-sky",
					runtime: "quickjs",
					entry: "./index.mjs",
					capabilities: ["event_hooks"],
				}),
				"extensions/sky/index.mjs": "export default function () {}\n",
			},
		);
		registry.downloads.set("pi-sky", 321);
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD, "--no-examples"], {
			agentDir,
			cwd: project,
			env: {
				...npmEnv({ url: registry.url } as Registry, dir.path),
				PIER_NPM_DOWNLOADS: registry.downloadsUrl,
				PI_OFFLINE: "0",
			},
		});
		browser = await launchBrowser();
	});

	after(async () => {
		await browser?.close();
		await serve?.stop();
		await registry?.close();
		dir[Symbol.dispose]();
	});

	test("find, read, install with a grant, switch off and on, remove", async () => {
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await page.getByTestId("account-menu").click();
		await page.getByTestId("packages").click();
		const panel = page.getByTestId("packages-panel");
		await panel.getByTestId("packages-none").waitFor();

		await panel.getByTestId("packages-tab-find").click();
		await panel.getByTestId("package-search").fill("sky");
		await panel.getByTestId("package-search").press("Enter");
		const result = panel.getByTestId("result-pi-sky");
		await see(result, "321 / week");
		assert.match((await result.textContent()) ?? "", /pi-sky\s*1\.0\.0/);
		await result.getByRole("button").click();
		const details = panel.getByTestId("package-details");
		await see(details.locator(".pkg-readme strong"), "sky");
		assert.equal(await page.evaluate("window.__pwned"), undefined, "the README's markup ran");
		assert.equal(await details.locator(".pkg-readme img[onerror]").count(), 0);

		await details.getByTestId("package-details-install").click();
		const inspection = panel.getByTestId("package-inspection");
		const ext = inspection.getByTestId("inspect-qjs-sky");
		await see(ext, "quickjs");
		assert.match((await ext.textContent()) ?? "", /sandboxed \(QuickJS\).*declares event_hooks/);
		await ext.getByLabel("run").check();
		await shot(page, "packages-desktop.png");
		assert.deepEqual(await seriousViolations(page), [], "axe on the inspection");
		await panel.getByTestId("package-install-confirm").click();
		// The grant prompt: what will be installed where, and the grants, before anything runs.
		const prompt = page.getByRole("alertdialog");
		await see(prompt, "qjs-sky: run");
		assert.match(
			(await prompt.textContent()) ?? "",
			/Install pi-sky for all projects\? Its install scripts do not run/,
		);
		await page.getByTestId("confirm-yes").click();

		const row = panel.getByTestId("installed-npm:pi-sky");
		await see(row, "1.0.0 installed");
		assert.deepEqual(settings().packages, ["npm:pi-sky"]);
		assert.deepEqual(settings().extensionHost.grants["qjs-sky"].grants, ["run"]);

		// The box follows settings: it changes once the daemon has written them.
		await row.getByTestId("package-enabled-all").click();
		await until(() => typeof settings().packages[0] === "object", "the package switched off in settings");
		assert.deepEqual(settings().packages[0].extensions, []);
		await until(async () => !(await row.getByTestId("package-enabled-all").isChecked()), "the switch shown off");
		await row.getByTestId("package-enabled-all").click();
		await until(() => settings().packages[0] === "npm:pi-sky", "the package switched on in settings");
		await until(async () => row.getByTestId("package-enabled-all").isChecked(), "the switch shown on");

		// The phone: the installed list fits the width.
		const phone = await browser.newContext(PHONE);
		phone.setDefaultTimeout(STEP);
		const small = await phone.newPage();
		await signIn(small, serve.url);
		await small.getByTestId("account-menu").click();
		await small.getByTestId("packages").click();
		await see(small.getByTestId("installed-npm:pi-sky"), "1.0.0 installed");
		assert.equal(await horizontalOverflow(small), 0);
		await shot(small, "packages-phone.png");
		assert.deepEqual(await seriousViolations(small), [], "axe on the installed list");
		await phone.close();

		await row.getByTestId("package-remove").click();
		await page.getByTestId("confirm-yes").click();
		await panel.getByTestId("packages-none").waitFor();
		assert.deepEqual(settings().packages, []);
		await context.close();
	});
});
