/**
 * The Permissions and Audit views in a real browser (1280×800 and 390×844) against a real `pier serve`: a rule is
 * added and removed in the Permissions view (and a bad one named), and the Audit view shows the decisions made —
 * the project trusted, a QuickJS extension refused a grant in a session — overall and in that session's panel.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
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
	shot,
	signIn,
} from "./browser-helpers.js";

describe("the Permissions and Audit views in the browser", () => {
	const dir = tempDir("pier-audit-ui-");
	const agentDir = join(dir.path, "agent");
	const settingsFile = join(agentDir, "settings.json");
	let serve: Serve;
	let browser: Browser;
	let page: Page;

	before(async () => {
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		cpSync(join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite"), join(agentDir, "extensions", "qjs-rewrite"), {
			recursive: true,
		});
		writeFileSync(settingsFile, JSON.stringify({ theme: "dark" }));
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir,
			cwd: dir.path,
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

	const open = async (p: Page, item: "permissions" | "audit") => {
		await p.getByTestId("account-menu").click();
		await p.getByTestId(item).click();
		return p.getByTestId(`${item}-panel`);
	};

	test("add and remove a rule; the Audit view shows the decisions, overall and per session; desktop and phone", async () => {
		const api = await apiFor(serve.url);
		assert.equal((await api.call("PUT", "/api/pi/projects/trust", { cwd: dir.path, trusted: true })).status, 200);
		const id = await newSession(page);
		await runTurn(page, 'bash {"command":"echo by-model > model-file"}');
		await see(rows(page, "error"), /lacks the "run" grant/);

		// The session's own decisions, in its Extensions panel.
		await page.getByTestId("extensions").click();
		const mine = page.getByTestId("session-audit");
		await see(mine.getByTestId("audit-entry"), /replace the input of bash/);
		assert.equal(await mine.locator('[data-testid="audit-entry"][data-kind="trust"]').count(), 0, "not this session's");
		await page.getByTestId("extensions").click();

		const perms = await open(page, "permissions");
		const global = perms.getByTestId("perm-global");
		await global.waitFor();
		await perms.getByTestId("perm-add-rule").fill("bash(rm *");
		await perms.getByTestId("perm-add-button").click();
		await see(perms.getByTestId("perm-error"), /"bash\(rm \*" is not a rule/);
		await perms.getByTestId("perm-add-list").selectOption("deny");
		await perms.getByTestId("perm-add-rule").fill("bash(rm *)");
		await perms.getByTestId("perm-add-button").click();
		await see(global.locator('[data-testid="perm-rule"][data-list="deny"]'), "bash(rm *)");
		assert.equal(await perms.getByTestId("perm-error").count(), 0);
		await perms.getByTestId("perm-add-list").selectOption("ask");
		await perms.getByTestId("perm-add-rule").fill("read(**/.env)");
		await perms.getByTestId("perm-add-button").click();
		await see(global.locator('[data-testid="perm-rule"][data-list="ask"]'), "read(**/.env)");
		assert.deepEqual(JSON.parse(readFileSync(settingsFile, "utf8")), {
			theme: "dark",
			permissions: { deny: ["bash(rm *)"], ask: ["read(**/.env)"] },
		});
		await dismissToasts(page);
		await shot(page, "permissions-desktop.png");
		await global.locator('[data-testid="perm-rule"][data-list="ask"]').getByTestId("perm-remove").click();
		await global.locator('[data-testid="perm-rule"][data-list="ask"]').waitFor({ state: "detached" });
		assert.deepEqual(JSON.parse(readFileSync(settingsFile, "utf8")).permissions, { deny: ["bash(rm *)"] });

		const audit = await open(page, "audit");
		const entries = audit.getByTestId("audit-entry");
		await see(entries, /replace the input of bash/);
		// Newest first: the refusal, then the trust decision made before it.
		assert.deepEqual(
			await entries.evaluateAll((els) =>
				els.map((e) => `${e.getAttribute("data-kind")} ${e.getAttribute("data-decision")}`),
			),
			["grant.use refused", "trust trusted"],
		);
		assert.match((await entries.first().textContent()) ?? "", new RegExp(`qjs-rewrite.*session ${id.slice(0, 8)}`));
		await shot(page, "audit-desktop.png");

		// The phone: the same views, nothing wider than the screen.
		const phone = await browser.newContext({ ...PHONE, storageState: await page.context().storageState() });
		phone.setDefaultTimeout(STEP);
		const small = await phone.newPage();
		await small.goto(`${serve.url}/?s=${id}`);
		await small.getByTestId("composer").waitFor();
		const phonePerms = await open(small, "permissions");
		await see(phonePerms.locator('[data-testid="perm-rule"][data-list="deny"]'), "bash(rm *)");
		assert.equal(await horizontalOverflow(small), 0, "the Permissions view fits 390 px");
		await shot(small, "permissions-phone.png");
		await phonePerms.getByTestId("perm-remove").click();
		await phonePerms.getByTestId("perm-rule").waitFor({ state: "detached" });
		assert.equal(JSON.parse(readFileSync(settingsFile, "utf8")).permissions, undefined);
		const phoneAudit = await open(small, "audit");
		await see(phoneAudit.getByTestId("audit-entry"), /replace the input of bash/);
		assert.equal(await horizontalOverflow(small), 0, "the Audit view fits 390 px");
		await shot(small, "audit-phone.png");
		await phone.close();
	});
});
