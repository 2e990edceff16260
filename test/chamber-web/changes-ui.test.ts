/**
 * The Changes view in a real browser (1280×800 and 390×844) against a real `pier serve` in a real git repository,
 * the offline demo model running pi's write and edit tools: the view lists the agent's files with coloured
 * unified diffs; Revert of one file, then of a turn, restores the project; a revert after the user's own edit
 * refuses and names the file; a file is staged and committed from the view; each revert's row survives a reload.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
	STEP,
	runTurn,
	see,
	serveArgs,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

describe("the Changes view in the browser", () => {
	const dir = tempDir("pier-changes-ui-");
	const project = join(dir.path, "project");
	const gitEnv = { GIT_CONFIG_GLOBAL: join(dir.path, "gitconfig"), GIT_CONFIG_NOSYSTEM: "1" };
	const git = (...args: string[]) =>
		execFileSync("git", args, { cwd: project, env: { ...process.env, ...gitEnv }, encoding: "utf8" });
	let serve: Serve;
	let browser: Browser;
	let page: Page;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(project);
		writeFileSync(gitEnv.GIT_CONFIG_GLOBAL, "[user]\n\tname = Test User\n\temail = test@example.com\n");
		git("init", "-q", "-b", "main");
		writeFileSync(join(project, "README.md"), "# project\n");
		git("add", "-A");
		git("commit", "-q", "-m", "start");
		// The daemon's state lives beside the repository, not in it.
		serve = await startServe([...serveArgs(join(dir.path, "state")), "--model", "pier/demo"], {
			agentDir: join(dir.path, "agent"),
			cwd: project,
			env: gitEnv,
		});
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		await signIn(page, serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const sheet = () => page.getByTestId("changes");
	const file = (path: string) => sheet().locator(`[data-testid="changes-file"][data-path="${path}"]`);
	/** Shows the whole session, or the turn whose prompt starts with `prompt`. */
	const scope = async (prompt: string) => {
		const select = sheet().getByTestId("changes-scope");
		if (prompt === "session") return void (await select.selectOption("session"));
		const option = select.locator("option").filter({ hasText: prompt });
		await select.selectOption((await option.getAttribute("value")) ?? "");
	};

	test("the agent's files, revert of a file and of a turn, a refused revert, a commit, on desktop and phone", async () => {
		const id = await newSession(page);
		await runTurn(page, 'write {"path":"app.ts","content":"export const a = 1;\\nexport const b = 2;\\n"}');
		await runTurn(
			page,
			'edit {"path":"app.ts","edits":[{"oldText":"export const b = 2;","newText":"export const b = 3;"}]}',
		);
		await runTurn(page, 'write {"path":"notes.md","content":"# Notes\\nfrom the agent\\n"}');

		await page.getByTestId("changes-open").click();
		await see(sheet().getByTestId("changes-mode"), "git · main");
		await file("app.ts").waitFor();
		assert.equal(await file("app.ts").getAttribute("data-status"), "added");
		assert.equal(await file("notes.md").getAttribute("data-status"), "added");
		const diff = file("app.ts").getByTestId("changes-diff");
		assert.deepEqual(
			(await diff.locator('[data-diff="added"] .diff-text').allTextContents()).map((t) => t.trim()),
			["export const a = 1;", "export const b = 3;"],
		);
		// Syntax colour: TypeScript's keywords are marked in the diff's lines.
		await diff.locator(".hljs-keyword").first().waitFor();
		await dismissToasts(page);
		await shot(page, "changes-desktop.png");

		// One file of turn 2 (the edit): app.ts is as the write left it.
		await scope("edit {");
		await file("app.ts").getByTestId("changes-revert").click();
		await see(sheet().getByTestId("changes-notice"), "Reverted app.ts");
		assert.equal(readFileSync(join(project, "app.ts"), "utf8"), "export const a = 1;\nexport const b = 2;\n");
		await file("app.ts").getByTestId("changes-reverted").waitFor();
		await see(rows(page, "changes"), /Reverted app\.ts \(turn \d+\)/);

		// All of turn 3: notes.md, which it created, is gone.
		await scope('write {"path":"notes.md"');
		await sheet().getByTestId("changes-revert-turn").click();
		await see(sheet().getByTestId("changes-notice"), "Reverted notes.md");
		assert.equal(existsSync(join(project, "notes.md")), false);

		// The user edits app.ts: reverting turn 1 refuses, names the file, and keeps the edit.
		writeFileSync(join(project, "app.ts"), "// mine\n");
		await scope('write {"path":"app.ts"');
		await sheet().getByTestId("changes-revert-turn").click();
		await see(sheet().getByTestId("changes-error"), /app\.ts changed since/);
		assert.equal(readFileSync(join(project, "app.ts"), "utf8"), "// mine\n");

		// Stage app.ts and commit it from the view.
		await scope("session");
		await file("app.ts").getByTestId("changes-stage").click();
		await see(sheet().getByTestId("changes-staged"), "Staged: app.ts");
		await sheet().getByTestId("changes-message").fill("Add app.ts from the Changes view");
		await sheet().getByTestId("changes-commit").click();
		await see(sheet().getByTestId("changes-notice"), "Committed");
		assert.equal(git("log", "-1", "--format=%s").trim(), "Add app.ts from the Changes view");
		assert.equal(git("show", "HEAD:app.ts"), "// mine\n");

		// A phone, opening the session afresh: the reverts' rows are there, and the view fits the screen.
		const phone = await browser.newContext(PHONE);
		try {
			const small = await phone.newPage();
			small.setDefaultTimeout(STEP);
			await small.goto(`${serve.url}/?s=${id}`);
			await small.getByTestId("login-password").fill(PASSWORD);
			await small.getByTestId("login-submit").click();
			await small.getByTestId("composer").waitFor();
			await until(async () => (await rows(small, "changes").count()) === 2, "both reverts' rows after a reload");
			await small.getByTestId("changes-open").click();
			const smallSheet = small.getByTestId("changes");
			await smallSheet.locator('[data-testid="changes-file"][data-path="app.ts"]').waitFor();
			const box = await smallSheet.boundingBox();
			assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the sheet stays on the phone: ${JSON.stringify(box)}`);
			assert.equal(await horizontalOverflow(small), 0);
			await dismissToasts(small);
			await shot(small, "changes-phone.png");
		} finally {
			await phone.close();
		}
	});
});
