/**
 * A session's life in a real browser: a session another pier holds (a real `pier --mode rpc` holding its lease)
 * says who holds it, keeps the connection badge true, keeps the typed draft through the refusal, the release and
 * a reload, and offers Fork a copy and Follow read-only; sessions `pier run` makes appear without a reload and
 * are found by a later message; delete asks first for a named session and the Trash view restores it; ↑ recalls
 * slash commands after a reload.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { cleanEnv, PIER_BIN, runPier, tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	launchBrowser,
	newSession,
	PHONE,
	see,
	send,
	shot,
	STEP,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

describe("a session's life in the browser", () => {
	const dir = tempDir("pier-lifecycle-ui-");
	const agentDir = join(dir.path, "agent");
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;
	let heldId = "";

	const item = (id: string) => page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
	const fileOf = (id: string) =>
		join(
			agentDir,
			"sessions",
			readdirSync(join(agentDir, "sessions"), { recursive: true })
				.map(String)
				.find((f) => f.endsWith(`_${id}.jsonl`))!,
		);
	const outside = async (...args: string[]) => {
		const run = await runPier(["run", ...args], { agentDir, cwd: dir.path });
		assert.equal(run.code, 0, run.stderr);
	};
	const idOf = async (firstMessage: string) =>
		until(async () => {
			const r = await api.call<{ sessions: { id: string; firstMessage?: string }[] }>("GET", "/api/pi/sessions");
			return r.body.sessions.find((s) => s.firstMessage === firstMessage)?.id;
		}, firstMessage);
	/** A real second pier holding the session's lease until its stdin ends. */
	const hold = (id: string): { process: ChildProcess; release: () => Promise<void> } => {
		const child = spawn(process.execPath, [PIER_BIN, "--mode", "rpc", "--session", fileOf(id)], {
			cwd: dir.path,
			env: cleanEnv(agentDir),
			stdio: ["pipe", "ignore", "ignore"],
		});
		const exited = new Promise((done) => child.on("exit", done));
		return {
			process: child,
			release: async () => {
				child.stdin?.end();
				await exited;
			},
		};
	};

	before(async () => {
		serve = await startChamber(dir.path, ["--no-examples"]);
		api = await apiFor(serve.url);
		await outside("held session words");
		browser = await launchBrowser();
		context = await browser.newContext(DESKTOP);
		page = await context.newPage();
		await signIn(page, serve.url);
	});

	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("a held session names its holder; the draft survives the refusal, the release and a reload", async () => {
		const id = await idOf("held session words");
		heldId = id;
		const holder = hold(id);
		try {
			await page.goto(`${serve.url}?s=${id}`);
			const banner = await see(page.getByTestId("held-banner"), `pid ${holder.process.pid}`);
			assert.match((await banner.textContent()) ?? "", /pier rpc/);
			await see(page.getByTestId("connection-state"), /^live$/);
			await shot(page, "session-held-desktop.png");
			const box = page.getByTestId("composer");
			await box.fill("my precious draft");
			await box.press("Enter");
			const refused = await see(page.getByTestId("composer-error"), /open in pier rpc/i);
			assert.doesNotMatch((await refused.textContent()) ?? "", /--fork/);
			assert.equal(await box.inputValue(), "my precious draft", "the refused draft stays");
			assert.equal(await page.getByTestId("connection-state").textContent(), "live", "the badge stays true");
		} finally {
			await holder.release();
		}
		await page.getByTestId("held-banner").waitFor({ state: "detached", timeout: STEP });
		await page.getByTestId("composer-error").waitFor({ state: "detached", timeout: STEP });
		const box = page.getByTestId("composer");
		assert.equal(await box.inputValue(), "my precious draft", "the release does not empty the box");
		await page.reload();
		await page.getByTestId("composer").waitFor({ timeout: STEP });
		assert.equal(await page.getByTestId("composer").inputValue(), "my precious draft", "nor does a reload");
		await page.getByTestId("composer").fill("");
	});

	test("Follow read-only hides the composer; Fork a copy opens a copy that runs here", async () => {
		const id = heldId;
		const holder = hold(id);
		try {
			await page.goto(`${serve.url}?s=${id}`);
			await page.getByTestId("held-banner").waitFor({ timeout: STEP });
			await page.getByTestId("follow-readonly").click();
			await page.getByTestId("composer").waitFor({ state: "detached", timeout: STEP });
			await see(page.getByTestId("held-banner"), /Following read-only/);
			await page.getByTestId("fork-copy").click();
			const copy = await until(() => {
				const s = new URL(page.url()).searchParams.get("s");
				return s && s !== id ? s : undefined;
			}, "the copy opened");
			await page.getByTestId("composer").waitFor({ timeout: STEP });
			assert.equal(await page.getByTestId("held-banner").count(), 0, "nobody else holds the copy");
			await item(copy).waitFor({ state: "attached", timeout: STEP });
		} finally {
			await holder.release();
		}
	});

	test("sessions made by `pier run` appear without a reload, found by a later message", async () => {
		await page.goto(serve.url);
		await page.getByTestId("session-list").waitFor({ timeout: STEP });
		await outside("outside first words");
		const id = await idOf("outside first words");
		await item(id).waitFor({ timeout: STEP });
		await outside("--session", fileOf(id), "kumquat later");
		await page.getByTestId("session-search").fill("kumquat");
		await until(
			async () =>
				JSON.stringify(
					await page.locator('[data-testid="session-item"]').evaluateAll((els) => els.map((e) => e.dataset.sessionId)),
				) === JSON.stringify([id]),
			"only the session whose later message matches",
		);
		await page.getByTestId("session-search").fill("");
	});

	test("delete asks first for a named session; the Trash view restores it", async () => {
		const id = await idOf("outside first words");
		assert.equal((await api.call("PATCH", `/api/pi/sessions/${id}`, { name: "Keep me" })).status, 200);
		await see(item(id), "Keep me");
		await item(id).hover();
		await item(id).getByTestId("delete-session").click();
		await page.getByTestId("confirm-no").click();
		assert.equal(await item(id).count(), 1, "Cancel keeps it");
		await item(id).hover();
		await item(id).getByTestId("delete-session").click();
		await page.getByTestId("confirm-yes").click();
		await item(id).waitFor({ state: "detached", timeout: STEP });
		await dismissToasts(page);
		await page.getByTestId("show-trash").click();
		const trashed = page.locator(`[data-testid="trash-item"][data-session-id="${id}"]`);
		await see(trashed, "Keep me");
		await shot(page, "session-trash-desktop.png");
		await trashed.getByTestId("restore-session").click();
		await trashed.waitFor({ state: "detached", timeout: STEP });
		await page.getByTestId("show-trash").click();
		await item(id).waitFor({ timeout: STEP });
		await dismissToasts(page);
	});

	test("↑ recalls a slash command after a reload, and goes on past it", async () => {
		const id = await idOf("outside first words");
		await page.goto(`${serve.url}?s=${id}`);
		const box = page.getByTestId("composer");
		await box.waitFor({ timeout: STEP });
		await box.fill("/hotkeys");
		await box.press("Enter");
		await until(async () => (await box.inputValue()) === "", "the command sent");
		await page.keyboard.press("Escape");
		await page.reload();
		await page.getByTestId("composer").waitFor({ timeout: STEP });
		await page.getByTestId("composer").click();
		await page.getByTestId("composer").press("ArrowUp");
		assert.equal(await page.getByTestId("composer").inputValue(), "/hotkeys");
		await page.getByTestId("composer").press("ArrowUp");
		assert.equal(await page.getByTestId("composer").inputValue(), "kumquat later", "not the command list");
		await page.getByTestId("composer").fill("");
	});

	test("while the agent runs, the composer's buttons sit in one row beside the box", async () => {
		await page.goto(serve.url);
		await newSession(page);
		await send(page, 't_wait {"ms":30000}');
		await page.getByTestId("abort").waitFor({ timeout: STEP });
		const boxes = await page
			.locator(".composer-buttons button")
			.evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => ({ top: r.top, bottom: r.bottom })));
		assert.equal(boxes.length, 4, "attach, Steer, Follow-up, Abort");
		const bottoms = boxes.map((b) => Math.round(b.bottom));
		assert.ok(Math.max(...bottoms) - Math.min(...bottoms) <= 2, `one row, not a stack: ${JSON.stringify(boxes)}`);
		const row = await page.locator(".composer-buttons").boundingBox();
		const box = await page.getByTestId("composer").boundingBox();
		assert.ok(row && box && row.height <= box.height + 1, "no taller than the message box: no gap beside it");
		await page.getByTestId("abort").click();
		await page.getByTestId("send").waitFor({ timeout: STEP });
	});

	test("the held banner and the trash on a phone", async () => {
		// Not idOf: the fork copy has the same first message.
		const id = heldId;
		const phone = await browser.newContext(PHONE);
		const small = await phone.newPage();
		const holder = hold(id);
		try {
			await signIn(small, serve.url);
			await small.goto(`${serve.url}?s=${id}`);
			await small.getByTestId("held-banner").waitFor({ timeout: STEP });
			await shot(small, "session-held-phone.png");
			const trashed = await idOf("outside first words");
			assert.equal((await api.call("DELETE", `/api/pi/sessions/${trashed}`)).status, 200);
			await small.goto(serve.url);
			await small.getByTestId("show-trash").click();
			await small.locator(`[data-testid="trash-item"][data-session-id="${trashed}"]`).waitFor({ timeout: STEP });
			await shot(small, "session-trash-phone.png");
		} finally {
			await holder.release();
			await phone.close();
		}
	});
});
