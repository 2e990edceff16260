/**
 * The Extensions panel in a real browser: a session running one extension of each kind (pier serve's
 * TypeScript, QuickJS and process examples, a JavaScript file and the native echo plugin, built with cargo)
 * lists each with its kind, state and metrics; a tool call counts; Reload restarts them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { type Serve, startServe } from "../helpers/chamber.js";
import { nativeLibrary } from "../helpers/native-build.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { DESKTOP, idle, launchBrowser, newSession, PASSWORD, send, signIn, until } from "./browser-helpers.js";

describe("the Extensions panel", () => {
	const dir = tempDir("pier-extensions-ui-");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		const native = join(dir.path, "native-echo");
		mkdirSync(native);
		const library = await nativeLibrary("native-echo");
		copyFileSync(library, join(native, basename(library)));
		copyFileSync(join(REPO_ROOT, "examples/native/echo/pi-extension.json"), join(native, "pi-extension.json"));
		const js = join(dir.path, "plain.js");
		writeFileSync(
			js,
			'export default function (pi) { pi.registerCommand("plain", { description: "a JS command", handler: async () => {} }); }\n',
		);
		serve = await startServe(
			[
				...[
					join(REPO_ROOT, "examples/extensions/chamber-demo.ts"),
					join(REPO_ROOT, "examples/quickjs/hello"),
					join(REPO_ROOT, "examples/process/node-weather"),
					js,
					native,
				].flatMap((p) => ["-e", p]),
				"--state-dir",
				join(dir.path, "state"),
				"--ui-password",
				PASSWORD,
			],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("each extension with its kind, state and metrics; a call counts; Reload restarts", {
		timeout: 120_000,
	}, async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await newSession(page);
		await send(page, 'weather {"city":"Oslo"}');
		await idle(page);
		await page.getByTestId("extensions").click();
		const items = page.locator('.extensions-panel [data-testid="extension"]');
		await until(async () => (await items.count()) >= 9, "one extension of each kind, and pi's four built-ins");
		const kinds = await items.evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")).sort());
		assert.deepEqual(
			kinds,
			["builtin", "builtin", "builtin", "builtin", "javascript", "native", "process", "quickjs", "typescript"],
			(await items.allTextContents()).join(" | "),
		);
		assert.match((await items.filter({ hasText: "native-echo" }).first().textContent()) ?? "", /tools: echo/);
		const weather = items.filter({ hasText: "weather" }).first();
		assert.match((await weather.getByTestId("extension-state").textContent()) ?? "", /active|running/);
		await until(
			async () => /^[1-9]\d* calls/.test((await weather.getByTestId("extension-metrics").textContent()) ?? ""),
			"the weather call counted",
		);
		// The counts are this runtime's, and say since when (a reopened session would otherwise show a bare "0 calls").
		assert.match(
			(await weather.getByTestId("extension-metrics").textContent()) ?? "",
			/^\d+ calls since \d{1,2}:\d{2}/,
		);
		assert.ok(
			!((await page.getByTestId("extensions").locator("..").textContent()) ?? "").includes(dir.path),
			"no paths",
		);
		await page.getByTestId("extensions-reload").click();
		await until(async () => {
			await page.getByTestId("extensions-refresh").click();
			return /1 restarts/.test((await weather.getByTestId("extension-metrics").textContent()) ?? "");
		}, "a restart counted after Reload");
		await context.close();
	});
});
