/**
 * The session list as a daily tool, in a real browser: search, grouped by project, archive and restore from
 * the archive, delete with Undo (the file waits in the trash), a rename field prefilled and focused, the project
 * folder field's placeholder whole and the field empty after use.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { apiFor, DESKTOP, launchBrowser, PHONE, STEP, signIn, startChamber, until } from "./browser-helpers.js";

describe("the session list", () => {
	const dir = tempDir("pier-sessions-ui-");
	let serve: Serve;
	let browser: Browser;
	let api: ApiClient;
	let page: Page;
	const ids: Record<string, string> = {};

	async function sessionWith(cwd: string, text: string): Promise<string> {
		mkdirSync(cwd, { recursive: true });
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(created.status, 201, JSON.stringify(created.body));
		const id = created.body.session.id;
		const stream = api.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "snapshot");
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text });
		await stream.waitFor((e) => e.event === "agent.end", "answer");
		stream.close();
		return id;
	}

	const item = (id: string) => page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
	const listed = async () =>
		page
			.locator('[data-testid="session-item"]')
			.evaluateAll((els) => els.map((e) => e.getAttribute("data-session-id")));

	before(async () => {
		serve = await startChamber(dir.path, ["--no-examples"]);
		api = await apiFor(serve.url);
		ids.alpha = await sessionWith(join(dir.path, "alpha"), "zebra crossing");
		ids.alpha2 = await sessionWith(join(dir.path, "alpha"), "giraffe neck");
		ids.beta = await sessionWith(join(dir.path, "beta"), "okapi stripes");
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		page = await context.newPage();
		await signIn(page, serve.url);
		await item(ids.beta!).waitFor({ timeout: STEP });
	});

	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("grouped by project directory, and searched by first message, name or project", async () => {
		const groups = await page.getByTestId("session-group").allTextContents();
		assert.deepEqual(groups, ["beta", "alpha"], "newest project first, one header each");
		await page.getByTestId("session-search").fill("giraffe");
		await until(
			async () => JSON.stringify(await listed()) === JSON.stringify([ids.alpha2]),
			"only the giraffe session",
		);
		await page.getByTestId("session-search").fill("beta");
		await until(async () => JSON.stringify(await listed()) === JSON.stringify([ids.beta]), "the project's session");
		await page.getByTestId("session-search").fill("");
		const api2 = await api.call<{ sessions: { id: string }[] }>("GET", "/api/pi/sessions?q=ZEBRA");
		assert.deepEqual(
			api2.body.sessions.map((s) => s.id),
			[ids.alpha],
			"the API searches too, case-insensitive",
		);
	});

	test("archive leaves the list and the file untouched; the archive view restores it", async () => {
		await item(ids.alpha!).hover();
		await item(ids.alpha!).getByTestId("archive-session").click();
		await until(async () => !(await listed()).includes(ids.alpha!), "the archived session leaves the list");
		const files = readdirSync(join(dir.path, "agent", "sessions"), { recursive: true }).filter(
			(f) => String(f).includes(ids.alpha!) && String(f).endsWith(".jsonl"),
		);
		assert.equal(files.length, 1, "its file is still there");
		const archived = await api.call<{ sessions: { id: string; archived?: boolean }[] }>(
			"GET",
			"/api/pi/sessions?archived=1",
		);
		assert.deepEqual(
			archived.body.sessions.map((s) => [s.id, s.archived]),
			[[ids.alpha, true]],
		);
		await page.getByTestId("show-archived").click();
		await item(ids.alpha!).waitFor({ timeout: STEP });
		await item(ids.alpha!).hover();
		await item(ids.alpha!).getByTestId("archive-session").click();
		await until(async () => !(await listed()).includes(ids.alpha!), "unarchived, it leaves the archive view");
		await page.getByTestId("show-archived").click();
		await item(ids.alpha!).waitFor({ timeout: STEP });
	});

	test("delete offers Undo, which brings the session and its file back", async () => {
		const file = () =>
			readdirSync(join(dir.path, "agent", "sessions"), { recursive: true })
				.map(String)
				.find((f) => f.includes(ids.beta!) && f.endsWith(".jsonl"));
		assert.ok(file());
		await item(ids.beta!).hover();
		await item(ids.beta!).getByTestId("delete-session").click();
		// It runs (the test prompted it), so the list asks first.
		await page.getByTestId("confirm-yes").click();
		await until(async () => !(await listed()).includes(ids.beta!), "the deleted session leaves the list");
		assert.equal(file(), undefined, "its file left pi's session directory");
		assert.ok(existsSync(join(dir.path, "state", "trash")), "it waits in the trash");
		await page.getByTestId("toast-action").click();
		await item(ids.beta!).waitFor({ timeout: STEP });
		assert.ok(file(), "the file is back");
		const restoredAgain = await api.call("POST", `/api/pi/sessions/${ids.beta}/restore`, {});
		assert.equal(restoredAgain.status, 410, "a restore with nothing in the trash is gone");
	});

	test("rename opens prefilled and focused", async () => {
		await item(ids.alpha2!).hover();
		await item(ids.alpha2!).getByTestId("rename-session").click();
		const input = page.getByTestId("rename-input");
		assert.equal(await input.inputValue(), "giraffe neck");
		assert.equal(
			await input.evaluate(
				(el) => el === (el as { ownerDocument: { activeElement: unknown } }).ownerDocument.activeElement,
			),
			true,
		);
		await input.fill("Long necks");
		await input.press("Enter");
		await until(async () => ((await item(ids.alpha2!).textContent()) ?? "").includes("Long necks"), "the new name");
	});

	test("while the first run still goes, the list already shows the first message and rename is prefilled with it", async () => {
		const cwd = join(dir.path, "gamma");
		mkdirSync(cwd, { recursive: true });
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
		const id = created.body.session.id;
		const stream = api.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "snapshot");
		// The demo model runs the tool: the run lasts as long as the sleep, far longer than the steps below.
		const text = 'bash {"command":"sleep 8"}';
		await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text });
		await stream.waitFor((e) => e.event === "tool.start", "the tool running");
		await until(async () => ((await item(id).textContent()) ?? "").includes("sleep 8"), "the first message listed");
		assert.equal(
			stream.events.some((e) => e.event === "agent.end"),
			false,
			"the list showed the first message only once the run had ended",
		);
		await item(id).hover();
		await item(id).getByTestId("rename-session").click();
		assert.equal(await page.getByTestId("rename-input").inputValue(), text);
		await page.getByTestId("rename-input").press("Escape");
		await stream.waitFor((e) => e.event === "agent.end", "the run's end");
		stream.close();
	});

	test("the project folder field shows its whole placeholder, and is empty again once a session is made in a typed folder", async () => {
		const field = (on: Page) => on.getByTestId("new-session-cwd");
		/** The placeholder's width in the field's font, and the room the field gives it. */
		const fit = (on: Page) =>
			field(on).evaluate((el) => {
				const input = el as unknown as {
					placeholder: string;
					clientWidth: number;
					ownerDocument: { defaultView: { getComputedStyle(e: unknown): Record<string, string> } } & {
						createElement(tag: "canvas"): {
							getContext(kind: "2d"): { font: string; measureText(t: string): { width: number } };
						};
					};
				};
				const style = input.ownerDocument.defaultView.getComputedStyle(el);
				const pen = input.ownerDocument.createElement("canvas").getContext("2d");
				pen.font = style.font ?? "";
				const room =
					input.clientWidth -
					Number.parseFloat(style.paddingLeft ?? "0") -
					Number.parseFloat(style.paddingRight ?? "0");
				return { text: input.placeholder, width: pen.measureText(input.placeholder).width, room };
			});
		const wide = await fit(page);
		assert.ok(wide.width <= wide.room, `at 1280 px the placeholder is cut: ${JSON.stringify(wide)}`);
		const small = await browser.newContext(PHONE);
		try {
			const phone = await small.newPage();
			await signIn(phone, serve.url);
			const narrow = await fit(phone);
			assert.ok(narrow.width <= narrow.room, `at 390 px the placeholder is cut: ${JSON.stringify(narrow)}`);
		} finally {
			await small.close();
		}

		const cwd = join(dir.path, "delta");
		mkdirSync(cwd, { recursive: true });
		await page.goto(serve.url);
		await field(page).fill(cwd);
		await page.getByTestId("new-session").click();
		await until(() => new URL(page.url()).searchParams.get("s") ?? undefined, "the new session open");
		const made = await api.call<{ sessions: Array<{ id: string; cwd: string }> }>("GET", "/api/pi/sessions");
		assert.ok(
			made.body.sessions.some((x) => x.cwd === cwd),
			"the session works in the typed folder",
		);
		// The list beside the open session, without a reload (a reload would empty any field).
		assert.equal(await field(page).inputValue(), "", "the next session starts from the default folder again");
	});
});
