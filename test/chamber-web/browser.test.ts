/**
 * The chamber end to end in a real browser: Debian's chromium against a real `pier serve` with the offline demo
 * model and the demo extension. Sign-in (password and pairing link), a streamed answer, a tool call with its
 * result, a card action, forms and dialogs answered, an app surface firing a command while forged messages are
 * ignored, and a pinned trigger. The tests share one signed-in page and one session, in order, and write the
 * desktop screenshots in docs/screenshots/.
 */
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ApiClient, type Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	closeRig,
	openRig,
	account,
	DESKTOP,
	dismissToasts,
	idle,
	newSession,
	PASSWORD,
	rows,
	STEP,
	see,
	send,
	shot,
	until,
} from "./browser-helpers.js";

type Row = { kind: string; id: string; text?: string; customType?: string; content?: unknown; card?: unknown };
type View = { rows: Row[] };

describe("the chamber in a browser", () => {
	const dir = tempDir("pier-web-");
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;
	let sessionId = "";
	const pageErrors: string[] = [];

	before(async () => {
		({ serve, browser, context, page, api } = await openRig(dir.path, pageErrors));
	});

	after(async () => {
		await closeRig({ serve, browser });
		dir[Symbol.dispose]();
	});

	const view = async () => {
		const reply = await api.call<View>("GET", `/api/pi/sessions/${sessionId}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	/** The content of the last `t.result` entry ui-ext.ts wrote, as the daemon has it. */
	const lastResult = async () => view().then((v) => v.rows.filter((r) => r.customType === "t.result").at(-1)?.content);
	const toast = (text: string | RegExp) => see(page.getByTestId("toast"), text);

	test("signs in with the password, and with a one-time pairing link in another browser", async () => {
		await page.goto(serve.url);
		await page.getByTestId("login-password").waitFor();
		await shot(page, "01-sign-in.png");

		await page.getByTestId("login-password").fill("not the password");
		await page.getByTestId("login-submit").click();
		await page.getByTestId("login-error").waitFor();
		assert.equal(await page.getByTestId("session-list").count(), 0, "a wrong password does not sign in");

		await page.getByTestId("login-password").fill(PASSWORD);
		await page.getByTestId("login-submit").click();
		await page.getByTestId("session-list").waitFor();
		assert.equal(await page.getByTestId("login-password").count(), 0);
		await page.reload();
		await page.getByTestId("session-list").waitFor();
		await see(page.getByTestId("connection-state"), /^live$/);

		const paired = await browser.newContext(DESKTOP);
		const late = await browser.newContext(DESKTOP);
		try {
			const phone = await paired.newPage();
			await phone.goto(serve.pairingUrl);
			await phone.getByTestId("session-list").waitFor({ timeout: STEP });
			assert.equal(await phone.getByTestId("login-password").count(), 0);
			assert.equal(new URL(phone.url()).hash, "", "the single-use token leaves the address bar");
			const cookies = await paired.cookies(serve.url);
			assert.ok(
				cookies.some((c) => c.name === "pier_session" && c.httpOnly && c.sameSite === "Strict"),
				JSON.stringify(cookies),
			);

			// The link was used: a second browser opening it is asked for the password instead.
			const other = await late.newPage();
			await other.goto(serve.pairingUrl);
			await other.getByTestId("login-password").waitFor({ timeout: STEP });
			await see(other.locator(".notice"), "pairing link did not work");
			assert.equal(await other.getByTestId("session-list").count(), 0);

			// A signed-in browser makes a fresh link for the next device.
			await account(page, "pair-device");
			const fresh = await page.getByTestId("pairing-link").inputValue();
			assert.match(fresh, /#pair=[\w-]+$/);
			await account(page, "pair-device");
			// Only the fragment changes: the app pairs on hashchange. A reload here would race that pairing (the
			// cookie may land before the page has stored the browser key, and the one-time link is spent).
			await other.goto(fresh);
			await other.getByTestId("session-list").waitFor({ timeout: STEP });
		} finally {
			await paired.close();
			await late.close();
		}
	});

	test("a prompt streams the demo model's answer into the transcript", async () => {
		sessionId = await newSession(page);
		// Record every draft (the message still streaming) the page renders, to tell streaming from a late dump.
		await page.evaluate(`(() => {
			window.__drafts = [];
			new MutationObserver(() => {
				for (const d of document.querySelectorAll('[data-testid="draft"]')) window.__drafts.push(d.textContent.length);
			}).observe(document.body, { subtree: true, childList: true, characterData: true });
		})()`);
		await send(page, "hello chamber");
		await see(rows(page, "user"), "hello chamber");
		const answer = await see(rows(page, "assistant"), "offline demo model");
		await idle(page);
		const text = (await answer.textContent()) ?? "";
		assert.match(text, /it does not understand "hello chamber"/);
		const drafts = (await page.evaluate("window.__drafts")) as number[];
		assert.ok(
			drafts.some((n) => n > 0 && n < text.length * 0.9),
			`the answer was seen arriving in pieces (draft lengths ${drafts.slice(0, 20).join(",")}… of ${text.length})`,
		);
		assert.equal(await page.getByTestId("draft").count(), 0, "the draft gave way to the persisted row");

		// What the page shows is what the daemon persisted, row for row.
		const persisted = (await view()).rows.filter((r) => r.kind === "user" || r.kind === "assistant");
		const shown = await rows(page).evaluateAll((els) =>
			els
				.map((el) => [el.getAttribute("data-kind"), el.getAttribute("data-row-id")])
				.filter(([kind]) => kind === "user" || kind === "assistant"),
		);
		assert.deepEqual(
			shown,
			persisted.map((r) => [r.kind, r.id]),
		);
		await see(page.getByTestId("session-title"), "hello chamber");
		await see(page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`), "hello chamber");
	});

	test("a tool call is shown with its arguments and its result", async () => {
		await send(page, 'bash {"command":"echo tool-ok"}');
		const bash = page.locator('[data-testid="tool-call"][data-tool-name="bash"]').last();
		await bash.waitFor();
		await until(async () => (await bash.getAttribute("data-status")) === "done", "the bash call to finish");
		await see(page.getByTestId("tool-result"), "tool-ok");
		await see(rows(page, "assistant"), 'Done: the bash tool says: "tool-ok');
		await idle(page);
		assert.match((await bash.textContent()) ?? "", /echo tool-ok/);

		// An extension tool: the demo's sub-agent appears in the live panel dock as well.
		await send(page, 'spawn_subagent {"name":"scout-1","task":"read the docs"}');
		const spawn = page.locator('[data-testid="tool-call"][data-tool-name="spawn_subagent"]').last();
		await spawn.waitFor();
		await see(rows(page, "assistant"), 'the spawn_subagent tool says: "Spawned scout-1"');
		await until(async () => (await spawn.getAttribute("data-status")) === "done", "the spawn call to finish");
		const agents = page.locator('[data-testid="panel"][data-panel-id="subagents"]');
		await see(agents.locator("tr"), /scout-1\s*running\s*read the docs/);
		await idle(page);

		await dismissToasts(page);
		await bash.locator("summary").click(); // open the call, for the screenshot
		await page.getByTestId("tool-result").first().locator("summary").click();
		await shot(page, "02-session-stream-and-tools.png");
	});

	test("a card action button runs its command", async () => {
		await send(page, "/demo-card");
		const card = await see(page.locator('[data-testid="card"][data-component="progress"]'), "Files indexed");
		await card.getByRole("button", { name: "Focus", exact: true }).click();
		await toast("Focusing on src");
		await see(rows(page, "card"), "Focused on src");

		// An action that asks for its argument first.
		await card.getByRole("button", { name: "Focus on…", exact: true }).click();
		await card.getByTestId("action-args-input").fill("lib/core");
		await card.getByTestId("action-args-submit").click();
		await toast("Focusing on lib/core");
		await see(rows(page, "card"), "Focused on lib/core");
	});

	test("a form's values reach the extension", async () => {
		await send(page, "/demo-form");
		const dialog = page.locator('[data-testid="dialog"][data-method="form"]');
		await see(dialog, "Spawn agent");
		const name = dialog.locator('[data-field-id="name"]');
		await name.fill("scout-2");
		await dialog.locator('[data-field-id="task"]').fill("map the repo");
		await dialog.locator('[data-field-id="priority"]').selectOption("high");
		await dialog.locator('[data-field-id="dryRun"]').check();
		await dismissToasts(page);
		await dialog.evaluate((el) => el.scrollIntoView({ block: "start" }));
		await shot(page, "04-form-dialog.png");
		// The required field is checked before anything is sent.
		await name.fill("");
		await dialog.getByTestId("dialog-submit").click();
		await see(dialog.getByRole("alert"), "Name is required");
		await name.fill("scout-2");
		await dialog.getByTestId("dialog-submit").click();
		await dialog.waitFor({ state: "detached" });
		const agents = page.locator('[data-testid="panel"][data-panel-id="subagents"]');
		await see(agents.locator("tr"), /scout-2\s*dry run\s*map the repo/);

		// Every field type, checked in what the extension received.
		await send(page, "/t-form");
		const form = page.locator('[data-testid="dialog"][data-method="form"]');
		await see(form, "Spawn");
		await form.locator('[data-field-id="name"]').fill("n1");
		await form.locator('[data-field-id="count"]').fill("3");
		await form.locator('[data-field-id="level"]').selectOption("low");
		await form.getByTestId("dialog-submit").click();
		await form.waitFor({ state: "detached" });
		await see(rows(page, "custom"), "t.result");
		const result = await until(async () => {
			const content = (await lastResult()) as { form?: unknown } | undefined;
			return content?.form ? content : undefined;
		}, "the form result entry");
		assert.deepEqual(result, { form: { name: "n1", count: "3", level: "low", dry: "false" } });
	});

	test("a dialog is confirmed, and a refusal reaches the extension too", async () => {
		await send(page, "/demo-confirm");
		const dialog = page.locator('[data-testid="dialog"][data-method="confirm"]');
		await see(dialog, "Ship the demo to production?");
		await dialog.getByTestId("dialog-countdown").waitFor();
		await dismissToasts(page);
		await shot(page, "05-confirm-dialog.png");
		await dialog.getByTestId("dialog-confirm-yes").click();
		await toast(/^Deploying$/);
		await dialog.waitFor({ state: "detached" });

		await send(page, "/t-confirm");
		const sure = page.locator('[data-testid="dialog"][data-method="confirm"]');
		await see(sure, "Really do it?");
		// A question waits on the daemon, not in the page: a reload shows it again.
		await page.reload();
		await see(sure, "Really do it?");
		await sure.getByTestId("dialog-confirm-no").click();
		await sure.waitFor({ state: "detached" });
		const result = await until(async () => {
			const content = (await lastResult()) as { confirmed?: unknown } | undefined;
			return content && "confirmed" in content ? content : undefined;
		}, "the confirm result entry");
		assert.deepEqual(result, { confirmed: false });
	});

	test("an app surface fires its command; forged messages and the parent page stay out of reach", async () => {
		await send(page, "/demo-app");
		const frameElement = page.locator('[data-testid="app-frame"][data-app-id="counter"]');
		await frameElement.waitFor();
		assert.equal(await frameElement.getAttribute("sandbox"), "allow-scripts");
		const frame = await (await frameElement.elementHandle())!.contentFrame();
		assert.ok(frame, "the app frame has a document");
		const button = frame.locator('button[data-pichamber-command="demo-focus"]');
		await button.waitFor();

		// The sandbox: an opaque origin that can neither read the chamber's page nor its storage.
		const probe = (await frame.evaluate(`(() => {
			let parentDocument, storage;
			try { parentDocument = "read " + parent.document.title; } catch (e) { parentDocument = "blocked " + e.name; }
			try { storage = "read " + typeof localStorage.length + document.cookie; } catch (e) { storage = "blocked " + e.name; }
			return { origin: self.origin, parentDocument, storage };
		})()`)) as { origin: string; parentDocument: string; storage: string };
		assert.deepEqual(probe, {
			origin: "null",
			parentDocument: "blocked SecurityError",
			storage: "blocked SecurityError",
		});
		// No network from the frame, and no inline script on the chamber's page.
		const fetched = await frame.evaluate(`fetch("/api/auth/status").then(() => "fetched", () => "blocked")`);
		assert.equal(fetched, "blocked");
		const inline = await page.evaluate(`(() => {
			const script = document.createElement("script");
			script.textContent = "window.__inlineRan = true";
			document.body.append(script);
			return window.__inlineRan === true;
		})()`);
		assert.equal(inline, false, "the page's CSP refuses inline scripts");

		// Forgeries: from the page itself (even with the frame's real token) and from the frame without it.
		await page.evaluate(
			`window.postMessage({ type: "pichamber.command", command: "demo-focus", args: "forged" }, "*")`,
		);
		// The token stays in the shell's closure: the app's own document never carries it.
		const frameHtml = (await frame.evaluate("document.documentElement.outerHTML")) as string;
		assert.doesNotMatch(frameHtml, /[0-9a-f]{32}/, "the frame document carries no token");
		await frame.evaluate(`document.querySelector("button[data-pichamber-command]").click()`);
		await frame.evaluate(
			`parent.postMessage({ type: "pichamber.command", token: "wrong", command: "demo-focus", args: "forged" }, "*")`,
		);
		await frame.evaluate(
			`parent.postMessage({ type: "pichamber.command", command: "demo-focus", args: "forged" }, "*")`,
		);

		// The real button, through the frame's bootstrap and its token.
		await dismissToasts(page);
		await button.click();
		await toast("Focusing on app");
		await see(rows(page, "card"), "Focused on app");
		await shot(page, "06-app-surface.png");

		// Nothing forged ran: give a stray command time to land, then ask the daemon.
		await page.waitForTimeout(1500);
		const rowsNow = (await view()).rows;
		assert.ok(
			rowsNow.some((r) => JSON.stringify(r).includes("`app`")),
			"the app's own command reached the daemon",
		);
		assert.deepEqual(
			rowsNow.filter((r) => JSON.stringify(r).includes("forged")),
			[],
		);
		assert.equal(await page.getByTestId("toast").filter({ hasText: "forged" }).count(), 0);
		assert.equal(await rows(page).filter({ hasText: "forged" }).count(), 0);
	});

	test("a command pinned as a quick-action button fires its command", async () => {
		const box = page.getByTestId("composer");
		await box.fill("/demo-fo");
		const suggestions = page.getByTestId("command-suggestions");
		await suggestions.waitFor();
		await suggestions.locator('[data-testid="pin-command"][data-command="demo-focus"]').click();
		const settings = page.getByTestId("trigger-settings-panel");
		await settings.getByTestId("trigger-args").fill("pinned");
		await settings.getByTestId("trigger-label").fill("Focus pinned");
		await settings.getByTestId("trigger-save").click();
		const trigger = page.locator('[data-testid="trigger-button"][data-command="demo-focus"]');
		await see(trigger, "Focus pinned");
		const saved = await until(async () => {
			const reply = await api.call<{ triggers: { command: string; args?: string; label?: string }[] }>(
				"GET",
				"/api/pi/ui-settings",
			);
			return reply.body.triggers.find((t) => t.command === "demo-focus" && t.args === "pinned");
		}, "the trigger in the daemon's settings");
		assert.equal(saved.label, "Focus pinned");
		await settings.getByRole("button", { name: "Close" }).click();
		await box.fill("");

		await trigger.click();
		await toast("Focusing on pinned");
		await see(rows(page, "card"), "Focused on pinned");

		// A keyboard shortcut for it: a built-in one is refused with the reason, a free one fires the command.
		await page.getByTestId("trigger-settings").click();
		await settings.locator("li").filter({ hasText: "Focus pinned" }).getByRole("button", { name: "Edit" }).click();
		const recorder = settings.getByTestId("shortcut-recorder").last();
		await recorder.focus();
		await page.keyboard.press("Control+K");
		await see(settings.getByTestId("trigger-problem"), "built-in");
		await recorder.focus();
		await page.keyboard.press("Control+Shift+F");
		assert.equal(await recorder.inputValue(), "Ctrl+Shift+F");
		await settings.getByTestId("trigger-save").click();
		await until(async () => {
			const reply = await api.call<{ triggers: { shortcut?: string }[] }>("GET", "/api/pi/ui-settings");
			return reply.body.triggers.find((t) => t.shortcut === "Ctrl+Shift+F");
		}, "the shortcut in the daemon's settings");
		await settings.getByRole("button", { name: "Close" }).click();
		await dismissToasts(page);
		await page.keyboard.press("Control+Shift+F");
		await toast("Focusing on pinned");

		// A second live panel for the dock, then the picture of cards, panels and the trigger bar.
		await send(page, "/t-panel build 3 of 5 steps done");
		await see(page.locator('[data-testid="panel"][data-panel-id="build"]'), "3 of 5 steps done");
		await idle(page);
		await page.locator('.app-surface[data-app-id="counter"] > summary').click(); // fold the app
		await dismissToasts(page);
		await shot(page, "03-cards-and-panels.png");
	});

	test("the agent can be aborted from the composer while it runs", async () => {
		await send(page, 't_wait {"ms":30000}');
		await page.locator('[data-testid="tool-call"][data-tool-name="t_wait"]').waitFor();
		const started = Date.now();
		await page.getByTestId("abort").click();
		await idle(page);
		assert.ok(Date.now() - started < STEP, "the 30 s tool ended early");
		await see(page.getByTestId("tool-result").last(), "aborted");
	});

	test("a settings-only project is asked too; Trust the parent folder stores the parent in the shared store", async () => {
		const parent = join(dir.path, "asks-parent");
		const project = join(parent, "p");
		mkdirSync(join(project, ".pi"), { recursive: true });
		writeFileSync(join(project, ".pi", "settings.json"), "{}\n");
		const before = new URL(page.url()).searchParams.get("s");
		await page.getByTestId("new-session-cwd").fill(project);
		await page.getByTestId("new-session").click();
		await see(page.getByTestId("trust-detail"), ".pi/settings.json");
		await see(page.getByTestId("trust-detail"), realpathSync(parent));
		await page.getByTestId("trust-parent").click();
		await until(() => {
			const now = new URL(page.url()).searchParams.get("s");
			return now && now !== before ? now : undefined;
		}, "the session in the project whose parent is trusted");
		const view = (
			await api.call<{ trusted: boolean; decidedFor: string }>(
				"GET",
				`/api/pi/projects/trust?cwd=${encodeURIComponent(project)}`,
			)
		).body;
		assert.deepEqual([view.trusted, view.decidedFor], [true, realpathSync(parent)]);
	});

	test("a project with its own extensions asks the trust question, and trusting it runs them", async () => {
		const project = join(dir.path, "trusted-project");
		mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
		writeFileSync(
			join(project, ".pi", "extensions", "marker.ts"),
			'export default function (pi) { pi.registerCommand("project-marker", { description: "from the project", handler: async () => {} }); }\n',
		);
		const before = new URL(page.url()).searchParams.get("s");
		await page.getByTestId("new-session-cwd").fill(project);
		await page.getByTestId("new-session").click();
		await page.getByTestId("trust-yes").click();
		await until(() => {
			const now = new URL(page.url()).searchParams.get("s");
			return now && now !== before ? now : undefined;
		}, "the trusted project's session");
		await page.getByTestId("composer").fill("/project-m");
		await see(page.getByTestId("command-suggestions"), "project-marker");
		await page.getByTestId("composer").fill("");
		assert.equal(
			(await api.call<{ trusted: boolean }>("GET", `/api/pi/projects/trust?cwd=${encodeURIComponent(project)}`)).body
				.trusted,
			true,
			"the decision is remembered",
		);
	});

	test("a long transcript opens with its latest rows and loads earlier ones as the reader scrolls up", async () => {
		const id = await newSession(page);
		await send(page, "/t-rows 310");
		const all = await until(async () => {
			const ids = (await api.call<View>("GET", `/api/pi/sessions/${id}`)).body.rows.map((r) => r.id);
			return ids.length === 310 ? ids : undefined;
		}, "310 rows in the daemon");
		const drawn = () => rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("data-row-id")));
		await until(async () => (await drawn()).includes(all.at(-1)!), "the last row, live");
		await page.reload();
		await see(page.getByTestId("older-rows"), "(10)");
		await until(async () => (await drawn()).includes(all.at(-1)!), "the last row after the reload");
		await page.getByTestId("transcript").hover();
		await until(async () => {
			await page.mouse.wheel(0, -20_000);
			return (await drawn()).includes(all[0]!);
		}, "the first row, loaded by scrolling up");
		assert.equal(await page.getByTestId("older-rows").count(), 0);
		const shown = await drawn();
		assert.deepEqual(shown, all.slice(0, shown.length), "the first rows, in the daemon's order");
	});

	test("when an extension starts a new pi session, the page follows it", async () => {
		const before = await newSession(page);
		await send(page, "/t-new-session");
		const after = await until(() => {
			const now = new URL(page.url()).searchParams.get("s");
			return now && now !== before ? now : undefined;
		}, "the page on the new session");
		await page.locator(`[data-testid="session-item"][data-session-id="${after}"]`).waitFor({ state: "attached" });
		await see(page.getByTestId("connection-state"), /^live$/);
		await send(page, "hello again");
		await see(rows(page, "assistant"), "offline demo model");
	});

	test("sessions are resumed, renamed and deleted from the list", async () => {
		const item = (id: string) => page.locator(`[data-testid="session-item"][data-session-id="${id}"]`);
		// Resume the first session (the trusted project's is open now): its transcript comes back.
		await item(sessionId).locator(".session-open").click();
		await until(() => new URL(page.url()).searchParams.get("s") === sessionId || undefined, "the resumed session");
		await see(rows(page, "user"), "hello");

		await item(sessionId).getByTestId("rename-session").click();
		await item(sessionId).getByTestId("rename-input").fill("Renamed in the browser");
		await item(sessionId).getByTestId("rename-input").press("Enter");
		await see(item(sessionId), "Renamed in the browser");
		assert.equal(
			(await api.call<{ session: { name?: string } }>("GET", `/api/pi/sessions/${sessionId}`)).body.session.name,
			"Renamed in the browser",
		);

		const doomed = await newSession(page);
		// It runs, so the list asks first; then it goes to the trash and a toast offers Undo (sessions-ui.test.ts).
		await item(doomed).getByTestId("delete-session").click();
		await page.getByTestId("confirm-yes").click();
		await item(doomed).waitFor({ state: "detached" });
		assert.equal((await api.call("GET", `/api/pi/sessions/${doomed}`)).status, 404);
	});

	test("signing out ends the session cookie", async () => {
		const cookie = (await context.cookies(serve.url)).find((c) => c.name === "pier_session");
		assert.ok(cookie);
		await account(page, "sign-out");
		await page.getByTestId("login-password").waitFor();
		await page.reload();
		await page.getByTestId("login-password").waitFor();
		assert.equal(await page.getByTestId("session-list").count(), 0);
		// The old cookie is dead on the daemon too, not only forgotten by this browser.
		const old = new ApiClient(serve.url);
		old.cookie = `${cookie.name}=${cookie.value}`;
		assert.equal((await old.call("GET", "/api/pi/sessions")).status, 401);
	});

	test("the page threw no uncaught errors", () => {
		assert.deepEqual(pageErrors, []);
	});
});
