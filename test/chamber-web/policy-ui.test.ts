/**
 * The extension policy in a real browser: the Extensions panel of a session lists what the policy refused as
 * `blocked`, with the refusal naming the field and the pattern (no server path), next to what runs; at desktop
 * and phone sizes, with screenshots.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { DESKTOP, launchBrowser, newSession, PASSWORD, PHONE, SCREENSHOTS, signIn, until } from "./browser-helpers.js";

describe("the Extensions panel under an extension policy", () => {
	const dir = tempDir("pier-policy-ui-");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		const agentDir = join(dir.path, "agent");
		const exts = join(agentDir, "extensions");
		mkdirSync(join(exts, "hello"), { recursive: true });
		writeFileSync(
			join(exts, "hello", "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "hello-qjs", runtime: "quickjs", entry: "./index.mjs", capabilities: [] }),
		);
		writeFileSync(join(exts, "hello", "index.mjs"), "export default function () {}\n");
		writeFileSync(join(exts, "shell-tools.ts"), "export default function () {}\n");
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ extensionPolicy: { block: ["id:shell-*"] } }));
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir,
			cwd: dir.path,
		});
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("a blocked extension is listed with the pattern that refused it", { timeout: 120_000 }, async () => {
		for (const [size, options] of [
			["desktop", DESKTOP],
			["phone", PHONE],
		] as const) {
			const context = await browser.newContext(options);
			const page = await context.newPage();
			await signIn(page, serve.url);
			await newSession(page);
			await page.getByTestId("extensions").click();
			const items = page.locator('.extensions-panel [data-testid="extension"]');
			const blocked = items.filter({ hasText: "shell-tools" });
			await until(async () => (await blocked.count()) === 1, "the blocked extension listed");
			assert.equal(await blocked.getByTestId("extension-state").textContent(), "blocked");
			const reason = (await blocked.getByTestId("extension-reason").textContent()) ?? "";
			assert.match(
				reason,
				/blocked by the extension policy in …settings\.json: extensionPolicy\.block pattern "id:shell-\*"/,
			);
			assert.ok(!reason.includes(dir.path), reason);
			const hello = items.filter({ hasText: "hello-qjs" });
			assert.match((await hello.getByTestId("extension-state").textContent()) ?? "", /active/);
			assert.equal(await hello.getByTestId("extension-reason").count(), 0);
			await blocked.scrollIntoViewIfNeeded();
			// The refusal is readable on the screen, not cut by its edges.
			const box = await blocked.getByTestId("extension-reason").boundingBox();
			const width = options.viewport?.width ?? 0;
			assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${size}: ${JSON.stringify(box)}`);
			await page.screenshot({ path: join(SCREENSHOTS, `policy-${size}.png`) });
			await context.close();
		}
	});
});
