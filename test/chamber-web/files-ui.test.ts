/**
 * The file browser in a real browser (1280×800 and 390×844) against a real `pier serve` on the offline demo
 * model, in a git project: folders listed one level at a time as git's ignore rules leave them; a source file
 * previewed with syntax colour and an image as an image; a symlink leading out refused; a file attached to a
 * prompt from its preview (the user row carries it as an @file chip, and what pi received names it). On the
 * phone: a file uploaded into a chosen folder (and replaced only after a yes), a photo from the camera input in
 * the prompt's images, and another file from the picker uploaded and attached; nothing sticks out sideways.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	horizontalOverflow,
	idle,
	launchBrowser,
	newSession,
	PASSWORD,
	PHONE,
	rows,
	STEP,
	see,
	serveArgs,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

/** A 1×1 PNG. */
const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
	"base64",
);
const APP_TS = [
	"// The answer, typed.",
	"export interface Answer {",
	"\tvalue: number;",
	"\tnote: string;",
	"}",
	"",
	'export const answer: Answer = { value: 42, note: "typed" };',
	"",
].join("\n");

describe("the file browser in the browser", () => {
	const dir = tempDir("pier-files-ui-");
	const project = join(dir.path, "project");
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;
	let id: string;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(join(project, "src"), { recursive: true });
		mkdirSync(join(project, "docs"), { recursive: true });
		mkdirSync(join(project, "dist"), { recursive: true });
		writeFileSync(join(project, ".gitignore"), "dist/\n");
		writeFileSync(join(project, "src", "app.ts"), APP_TS);
		writeFileSync(join(project, "README.md"), "# A project\n\nWith a logo.\n");
		writeFileSync(join(project, "docs", "logo.png"), PNG);
		writeFileSync(join(project, "dist", "bundle.js"), "built\n");
		writeFileSync(join(dir.path, "secret.txt"), "OUTSIDE-SECRET\n");
		symlinkSync(join(dir.path, "secret.txt"), join(project, "escape.txt"));
		execFileSync("git", ["init", "-q"], { cwd: project });
		serve = await startServe(serveArgs(join(dir.path, "state")), { agentDir: join(dir.path, "agent"), cwd: project });
		browser = await launchBrowser();
		context = await browser.newContext({ ...DESKTOP, permissions: ["clipboard-read", "clipboard-write"] });
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		await signIn(page, serve.url);
		api = await apiFor(serve.url);
		id = await newSession(page);
		const model = await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "pier/demo" });
		assert.equal(model.status, 200, JSON.stringify(model.body));
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const entry = (p: Page, path: string) => p.locator(`[data-testid="files-entry"][data-path="${path}"] > button`);

	test("browse, preview a coloured source file and an image, refuse a link out, attach a file to a prompt", async () => {
		assert.equal(await page.getByTestId("attach-camera").count(), 0, "the camera is the phone's");
		await page.getByTestId("files-open").click();
		const sheet = page.getByTestId("files");
		await entry(page, "src").waitFor();
		const listed = await sheet
			.locator('[data-testid="files-entry"]')
			.evaluateAll((els) => els.map((e) => e.getAttribute("data-path")));
		assert.deepEqual(listed, ["docs", "src", ".gitignore", "escape.txt", "README.md"], "dist/ is ignored by git");

		await entry(page, "src").click();
		await entry(page, "src/app.ts").click();
		const code = sheet.getByTestId("files-preview-text");
		await code.waitFor();
		await until(async () => (await code.getAttribute("data-language")) === "typescript", "the language");
		await code.locator(".hljs-keyword").first().waitFor();
		assert.equal(await code.locator(".files-line").count(), 7);
		const colour = (selector: string) =>
			code
				.locator(selector)
				.first()
				.evaluate(
					(e) =>
						(globalThis as unknown as { getComputedStyle: (e: unknown) => { color: string } }).getComputedStyle(e)
							.color,
				);
		assert.notEqual(await colour(".hljs-keyword"), await colour(".hljs-string"), "keywords and strings differ");
		assert.notEqual(await colour(".hljs-keyword"), await colour(".files-src"), "a keyword is coloured");
		await shot(page, "files-desktop.png");

		await entry(page, "docs").click();
		await entry(page, "docs/logo.png").click();
		const image = sheet.getByTestId("files-preview-image");
		await image.waitFor();
		await until(
			() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth === 1),
			"the image decoded",
		);
		assert.match((await image.getAttribute("src")) ?? "", /^data:image\/png;base64,/);

		await entry(page, "escape.txt").click();
		await see(sheet.getByTestId("files-preview-error"), /escape\.txt: outside the project/);
		assert.doesNotMatch((await sheet.textContent()) ?? "", /OUTSIDE-SECRET/);

		await entry(page, "src/app.ts").click();
		await code.waitFor();
		await page.getByTestId("files-copy").click();
		await see(page.getByTestId("toast"), "Copied src/app.ts");
		assert.equal(await page.evaluate("navigator.clipboard.readText()"), "src/app.ts");
		await sheet.getByTestId("files-attach").click();
		await sheet.waitFor({ state: "detached" });
		const box = page.getByTestId("composer");
		assert.equal(await box.inputValue(), "@src/app.ts ");
		await box.press("End");
		await box.pressSequentially("what is the answer?");
		await box.press("Enter");
		await until(async () => (await box.inputValue()) === "", "the prompt accepted");
		const row = rows(page, "user").first();
		await see(row.getByTestId("file-chip"), /app\.ts/);
		assert.equal(((await row.locator(".bubble").textContent()) ?? "").trim(), "@src/app.ts what is the answer?");
		await idle(page);
		// What pi received: the file's text before the words, named by its real path.
		const view = await api.call<{ rows: { kind: string; files?: { path: string; text?: string }[] }[] }>(
			"GET",
			`/api/pi/sessions/${id}`,
		);
		const sent = view.body.rows.find((r) => r.kind === "user")?.files ?? [];
		assert.deepEqual(
			sent.map((f) => [f.path, f.text]),
			[[join(realpathSync(project), "src", "app.ts"), APP_TS]],
		);
	});

	test("on a phone: upload into a folder (replacing only after a yes), a camera photo and a picked file attach", async () => {
		const small = await browser.newContext(PHONE);
		try {
			const phone = await small.newPage();
			phone.setDefaultTimeout(STEP);
			await phone.goto(`${serve.url}/?s=${id}`);
			await phone.getByTestId("login-password").fill(PASSWORD);
			await phone.getByTestId("login-submit").click();
			await phone.getByTestId("composer").waitFor();

			await phone.getByTestId("files-open").click();
			const sheet = phone.getByTestId("files");
			await entry(phone, "docs").click();
			await see(phone.getByTestId("files-upload"), "Upload into docs/");
			const notes = {
				name: "field-notes.md",
				mimeType: "text/markdown",
				buffer: Buffer.from("# Notes\nfrom the phone\n"),
			};
			await phone.getByTestId("files-upload-input").setInputFiles(notes);
			// The upload opens in the preview, which takes the sheet on a phone.
			await see(sheet.getByTestId("files-preview-text"), "from the phone");
			assert.equal(readFileSync(join(project, "docs", "field-notes.md"), "utf8"), "# Notes\nfrom the phone\n");
			assert.equal(await sheet.locator(".files-tree").isVisible(), false, "the preview has the screen");
			const box = await sheet.boundingBox();
			assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the sheet fits the phone: ${JSON.stringify(box)}`);
			assert.equal(await horizontalOverflow(phone), 0);
			await dismissToasts(phone);
			await shot(phone, "files-phone.png");

			// The same name again: nothing is replaced until the user says so.
			await phone.getByTestId("files-upload-input").setInputFiles({ ...notes, buffer: Buffer.from("second\n") });
			await phone.getByTestId("confirm-yes").waitFor();
			assert.equal(readFileSync(join(project, "docs", "field-notes.md"), "utf8"), "# Notes\nfrom the phone\n");
			await phone.getByTestId("confirm-yes").click();
			await see(sheet.getByTestId("files-preview-text"), "second");
			assert.equal(readFileSync(join(project, "docs", "field-notes.md"), "utf8"), "second\n");
			await sheet.locator(".files-back").click();
			await entry(phone, "docs").waitFor();
			await phone.getByTestId("files-close").click();

			// The camera's photo joins the prompt's images; another file is uploaded and attached as @file.
			await phone.getByTestId("attach-camera").waitFor();
			await phone.getByTestId("camera-input").setInputFiles({ name: "photo.png", mimeType: "image/png", buffer: PNG });
			await phone.locator('[data-testid="attached-images"] img').waitFor();
			await phone.getByTestId("phone-file-input").setInputFiles({
				name: "todo.txt",
				mimeType: "text/plain",
				buffer: Buffer.from("buy milk\n"),
			});
			await until(async () => (await phone.getByTestId("composer").inputValue()) === "@todo.txt ", "@todo.txt");
			assert.equal(readFileSync(join(project, "todo.txt"), "utf8"), "buy milk\n");
			assert.equal(await horizontalOverflow(phone), 0);
		} finally {
			await small.close();
		}
	});
});
