/**
 * Worktrees in a real browser (1280×800 and 390×844) against a real `pier serve`, a real git repository and the
 * offline demo model: "New session" in a new worktree, its branch in the session list, the agent's file in the
 * worktree and not in the main checkout, a merge refused for uncommitted work and then committed and merged from
 * the session's worktree panel; on the phone, the panel and removing the worktree.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { seriousViolations } from "./axe.js";
import {
	DESKTOP,
	dismissToasts,
	horizontalOverflow,
	launchBrowser,
	PASSWORD,
	PHONE,
	STEP,
	runTurn,
	see,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

function git(dir: string, ...args: string[]): string {
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
	return execFileSync("git", ["-C", dir, ...args], { env: { ...env, LC_ALL: "C" }, encoding: "utf8" });
}

describe("worktrees in the browser", () => {
	const dir = tempDir("pier-worktrees-ui-");
	let repo: string;
	let serve: Serve;
	let browser: Browser;
	let page: Page;
	let sessionId: string;
	const pageErrors: string[] = [];

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		const made = join(dir.path, "repo");
		mkdirSync(made);
		git(made, "init", "-q", "-b", "main");
		git(made, "config", "user.name", "Pier Test");
		git(made, "config", "user.email", "pier@example.invalid");
		git(made, "config", "commit.gpgsign", "false");
		writeFileSync(join(made, "README.md"), "# Project\n");
		git(made, "add", "-A");
		git(made, "commit", "-q", "-m", "first");
		repo = realpathSync(made);
		serve = await startServe(
			["--no-examples", "--model", "pier/demo", "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await signIn(page, serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("desktop: a worktree session's edit stays out of the main checkout until merged from its panel", async () => {
		await page.getByTestId("new-session-cwd").fill(repo);
		await page.getByTestId("new-session-worktree").check();
		// A name git refuses is refused with the reason, and nothing is made.
		await page.getByTestId("new-session-branch").fill("bad..name");
		await page.getByTestId("new-session").click();
		await see(page.getByRole("alert"), /git does not take "bad\.\.name"/);
		await page.getByTestId("new-session-branch").fill("feature/ui");
		await page.getByTestId("new-session").click();
		sessionId = await until(() => new URL(page.url()).searchParams.get("s"), "the new session in the address");
		await page.getByTestId("composer").waitFor();
		const item = page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`);
		await see(item.getByTestId("session-branch"), "feature/ui");

		await runTurn(page, 'write {"path":"x.ts","content":"export const x = 1;\\n"}');
		const worktree = await until(() => {
			const records = JSON.parse(readFileSync(join(dir.path, "state", "worktrees.json"), "utf8")) as {
				worktrees: { path: string; branch: string }[];
			};
			return records.worktrees.find((w) => w.branch === "feature/ui")?.path;
		}, "the worktree's record");
		await until(() => existsSync(join(worktree, "x.ts")), "x.ts in the worktree");
		assert.ok(!existsSync(join(repo, "x.ts")), "the main checkout does not have it");

		await page.getByTestId("worktree").click();
		await see(page.getByTestId("worktree-uncommitted"), "x.ts");
		await page.getByTestId("worktree-merge").click();
		await see(page.getByTestId("worktree-error"), /uncommitted work: x\.ts/);
		assert.ok(!existsSync(join(repo, "x.ts")), "a refused merge changes nothing");

		await page.getByTestId("worktree-commit-message").fill("Add x");
		await see(page.getByTestId("worktree-merge"), "Commit and merge");
		await dismissToasts(page);
		await shot(page, "worktrees-desktop.png");
		assert.deepEqual(await seriousViolations(page), [], "axe-core: the open panel and the list's branch");
		await page.getByTestId("worktree-merge").click();
		await see(page.getByTestId("worktree-note"), "Merged feature/ui into main (1 commit)");
		assert.equal(readFileSync(join(repo, "x.ts"), "utf8"), "export const x = 1;\n");
		assert.equal(git(repo, "log", "-1", "--format=%s", "HEAD^2").trim(), "Add x");
		await see(page.getByTestId("worktree-ahead"), "No commit main lacks yet.");
	});

	test("phone: the worktree panel, and removing the worktree", async () => {
		const context = await browser.newContext(PHONE);
		try {
			const small = await context.newPage();
			small.setDefaultTimeout(STEP);
			small.on("pageerror", (error) => pageErrors.push(error.message));
			await small.goto(`${serve.url}/?s=${sessionId}`);
			await small.getByTestId("login-password").fill(PASSWORD);
			await small.getByTestId("login-submit").click();
			await small.getByTestId("composer").waitFor();
			await small.getByTestId("worktree").click();
			await see(small.getByTestId("worktree-branch"), "feature/ui");
			await see(small.getByTestId("worktree-base"), "main");
			await dismissToasts(small);
			assert.equal(await horizontalOverflow(small), 0, "nothing sticks out sideways at 390 px");
			await shot(small, "worktrees-phone.png");
			assert.deepEqual(await seriousViolations(small), [], "axe-core: the panel on a phone");
			await small.getByTestId("worktree-remove").click();
			await see(small.getByTestId("toast"), "Removed the worktree and its branch feature/ui");
			await small.getByTestId("worktree").waitFor({ state: "detached" });
			assert.equal(git(repo, "branch", "--list", "feature/ui").trim(), "");
			assert.doesNotMatch(git(repo, "worktree", "list"), /feature/);
		} finally {
			await context.close();
		}
		assert.deepEqual(pageErrors, []);
	});
});
