/**
 * The terminal in a real browser (1280×800 and 390×844) against a real `pier serve` and real PTYs (bash): xterm.js
 * is fetched only when the user opens a terminal, and no shell runs before; a command typed on the screen runs in
 * the session's directory; a reload shows the scrollback again; two terminals at once, each with its own screen; on
 * a phone the screen fits the width and the on-screen keys reach the shell; a shell's exit shows, and closing a tab
 * ends its shell. No page error, no Content-Security-Policy refusal, no serious axe finding.
 */
import assert from "node:assert/strict";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { isRunning } from "../../src/chamber/terminal/process-session.js";
import type { TerminalView } from "../../src/chamber/terminal/terminal-wire.js";
import { type ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { seriousViolations } from "./axe.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	horizontalOverflow,
	launchBrowser,
	newSession,
	PASSWORD,
	PHONE,
	STEP,
	see,
	serveArgs,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A whole line on the screen (xterm's rows may end in blanks). */
/** A shell's prompt, whatever the machine's bashrc makes it (`$ `, `root@host:~/dir# `). */
const PROMPT = /[$#%>]\s*$/m;
const lineOf = (text: string) => new RegExp(`^${escaped(text)}\\s*$`, "m");

describe("the terminal in the browser", () => {
	const dir = tempDir("pier-terminal-ui-");
	const project = join(realpathSync(dir.path), "my-project");
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;
	let sessionId: string;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(project);
		// The daemon runs in the project (new sessions open there) with bash as the user's shell, no rc files.
		serve = await startServe(serveArgs(join(dir.path, "state")), {
			agentDir: join(dir.path, "agent"),
			cwd: project,
			env: { SHELL: "/bin/bash", HOME: dir.path },
		});
		browser = await launchBrowser();
		context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		watchPage(page);
		await signIn(page, serve.url);
		api = await apiFor(serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	/** Uncaught errors and Content-Security-Policy refusals (xterm.js writes style elements; no script is inline). */
	const problems: string[] = [];
	const watchPage = (p: Page) => {
		p.on("pageerror", (error) => problems.push(error.message));
		p.on("console", (m) => {
			if (/Content Security Policy/i.test(m.text())) problems.push(m.text());
		});
	};
	/** The text on the shown terminal's screen, a line per row of xterm's DOM renderer. */
	const screenText = (p: Page) =>
		p
			.locator('[data-testid="terminal-screen"][data-active="true"] .xterm-rows')
			.evaluate((rows) => [...rows.children].map((row) => row.textContent ?? "").join("\n"));
	const seeOnScreen = (p: Page, text: string | RegExp) =>
		until(
			async () => {
				const shown = await screenText(p);
				return typeof text === "string" ? shown.includes(text) : text.test(shown);
			},
			`${String(text)} on the terminal's screen`,
		);
	/** Types a command into the shown screen as a person would. */
	const typeCommand = async (p: Page, command: string) => {
		await p.locator('[data-testid="terminal-screen"][data-active="true"] .xterm').click();
		await p.keyboard.type(command);
		await p.keyboard.press("Enter");
	};
	const terminals = async () =>
		(await api.call<{ terminals: TerminalView[] }>("GET", `/api/pi/sessions/${sessionId}/terminals`)).body.terminals;
	const loadedTerminalCode = (p: Page) =>
		p.evaluate(() =>
			performance.getEntriesByType("resource").some((r) => /\/assets\/TerminalSheet-[^/]*\.js$/.test(r.name)),
		);

	test("a command runs in the session's directory, and a reload shows its scrollback again", async () => {
		sessionId = await newSession(page);
		// Nothing of the terminal before the user asks: no shell on the daemon, no xterm.js in the page.
		assert.deepEqual(await terminals(), []);
		assert.equal(await loadedTerminalCode(page), false);

		await page.getByTestId("terminal-toggle").click();
		await page.getByTestId("terminal-sheet").waitFor();
		await page.getByTestId("terminal-tab").first().waitFor();
		assert.equal(await loadedTerminalCode(page), true);
		const [first] = await until(async () => {
			const list = await terminals();
			return list.length === 1 ? list : undefined;
		}, "one terminal on the daemon");
		assert.equal(first!.cwd, project);
		await seeOnScreen(page, PROMPT);
		await typeCommand(page, "pwd");
		await seeOnScreen(page, lineOf(project));
		await typeCommand(page, "echo made-$((6*7)) > note.txt; cat note.txt");
		await seeOnScreen(page, /^made-42\s*$/m);
		// The screen fitted itself to the sheet and told the daemon its size.
		const fitted = await until(async () => {
			const [t] = await terminals();
			return t && t.cols > 100 ? t : undefined;
		}, "the desktop size on the daemon");
		assert.ok(fitted.rows >= 10, `${fitted.cols}×${fitted.rows}`);

		await page.reload();
		await page.getByTestId("composer").waitFor();
		// The panel comes back by itself (remembered for the tab) and replays the scrollback.
		await page.getByTestId("terminal-sheet").waitFor();
		await seeOnScreen(page, lineOf(project));
		await seeOnScreen(page, /^made-42\s*$/m);
		assert.equal((await terminals()).length, 1, "the reload opened no second shell");
	});

	test("two terminals at once, each its own shell and screen", async () => {
		await page.getByTestId("terminal-new").click();
		await until(async () => (await page.getByTestId("terminal-tab").count()) === 2, "a second tab");
		await until(async () => (await terminals()).length === 2, "two terminals on the daemon");
		const second = page.locator('[data-testid="terminal-screen"][data-active="true"]');
		const secondId = await second.getAttribute("data-terminal-id");
		await seeOnScreen(page, PROMPT);
		await typeCommand(page, "cd .. && echo second-$((40+2)) in $(basename $PWD)");
		await seeOnScreen(page, /^second-42 in /m);
		// The first screen still shows its own commands, and not the second's.
		await page.getByTestId("terminal-tab").first().click();
		await seeOnScreen(page, /^made-42\s*$/m);
		assert.doesNotMatch(await screenText(page), /second-42/);
		await typeCommand(page, "pwd");
		await until(
			async () => (await screenText(page)).match(new RegExp(`^${escaped(project)}\\s*$`, "gm"))?.length === 2,
			"pwd again",
		);
		await page.locator(`[data-testid="terminal-tab"][data-terminal-id="${secondId}"]`).click();
		await seeOnScreen(page, /^second-42 in /m);
		await dismissToasts(page);
		await shot(page, "terminal-desktop.png");
		assert.deepEqual(await seriousViolations(page), []);
		assert.deepEqual(problems, []);
	});

	test("on a phone the screen fits the width and the on-screen keys reach the shell", async () => {
		const phone = await browser.newContext(PHONE);
		try {
			const small = await phone.newPage();
			small.setDefaultTimeout(STEP);
			watchPage(small);
			await small.goto(`${serve.url}/?s=${sessionId}`);
			await small.getByTestId("login-password").fill(PASSWORD);
			await small.getByTestId("login-submit").click();
			await small.getByTestId("composer").waitFor();
			await small.getByTestId("terminal-toggle").click();
			await small.getByTestId("terminal-sheet").waitFor();
			// The two terminals running are shown; the click started none (one runs already).
			await until(async () => (await small.getByTestId("terminal-tab").count()) === 2, "both tabs on the phone");
			assert.equal((await terminals()).length, 2);
			await seeOnScreen(small, /^second-42 in /m);
			const box = await small.locator('[data-testid="terminal-screen"][data-active="true"]').boundingBox();
			assert.ok(box && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
			assert.equal(await horizontalOverflow(small), 0);
			const id = await small
				.locator('[data-testid="terminal-screen"][data-active="true"]')
				.getAttribute("data-terminal-id");
			const narrow = await until(async () => {
				const t = (await terminals()).find((x) => x.id === id);
				return t && t.cols <= 60 ? t : undefined;
			}, "the phone's width on the daemon");
			assert.ok(narrow.cols >= 30, `${narrow.cols} columns`);

			await typeCommand(small, "echo phone-$((2+3))");
			await seeOnScreen(small, /^phone-5\s*$/m);
			// ↑ brings the last command back, ^C drops it, and Tab completes a name in the project.
			await small.getByTestId("terminal-key-Up").tap();
			await small.getByTestId("terminal-key-Ctrl-C").tap();
			await small.keyboard.type("cat my-proj");
			await small.getByTestId("terminal-key-Tab").tap();
			await small.keyboard.type("note.txt");
			await small.keyboard.press("Enter");
			await seeOnScreen(small, /echo phone-\$\(\(2\+3\)\)\^C/);
			await seeOnScreen(small, /^made-42\s*$/m);
			await shot(small, "terminal-phone.png");
			assert.deepEqual(await seriousViolations(small), []);
			assert.deepEqual(problems, []);
		} finally {
			await phone.close();
		}
	});

	test("a shell that exits says so; closing its tab drops it, and × on a running one ends its shell", async () => {
		// The desktop page still shows the second terminal.
		await typeCommand(page, "exit 7");
		await see(page.getByTestId("terminal-ended"), "shell exited with code 7");
		await seeOnScreen(page, "[shell exited with code 7]");
		await until(async () => (await terminals()).length === 1, "the exited terminal gone from the daemon");
		await page.locator('[data-testid="terminal-tab"][aria-current="true"] + [data-testid="terminal-close"]').click();
		await until(async () => (await page.getByTestId("terminal-tab").count()) === 1, "one tab left");
		const [last] = await terminals();
		await page.getByTestId("terminal-close").click();
		await until(async () => (await terminals()).length === 0, "no terminal on the daemon");
		await until(async () => (await page.getByTestId("terminal-tab").count()) === 0, "no tab left");
		await page.getByTestId("terminal-hide").click();
		await page.getByTestId("terminal-sheet").waitFor({ state: "detached" });
		await until(() => last !== undefined && !isRunning(last.pid), "the closed terminal's shell to end");
		assert.deepEqual(problems, []);
	});
});
