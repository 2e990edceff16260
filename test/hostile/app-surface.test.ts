/**
 * Finding 8: an app surface fired commands without a click, and fired any command. The hostile app reads its own
 * per-mount token and, unprompted, clicks its own button from script and posts `/name`, another extension's
 * command and its own straight to the page; its click handler also rides on a real click to post `/name`.
 * Guarantee: nothing fires without a real user gesture; with one, an app runs only commands of the extension that
 * mounted it (in-process or QuickJS), never the chamber's own; the daemon refuses the rest on its own authority.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Frame, Page } from "playwright-core";
import {
	apiFor,
	newSession,
	PASSWORD,
	see,
	send,
	signIn,
	until,
	type BrowserRig,
	closeRig,
	openRig,
} from "../chamber-web/browser-helpers.js";
import { type ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/hostile");

type Row = { kind: string; customType?: string; content?: { command?: string; args?: string } };
type View = { session: { name?: string }; rows: Row[] };

describe("hostile app surfaces: no command without a click, and only the mounting extension's", () => {
	const dir = tempDir("pier-hostile-app-");
	let serve: Serve;
	let page: Page;
	let api: ApiClient;
	let sessionId: string;
	const pageErrors: string[] = [];

	let rig: BrowserRig;
	before(async () => {
		rig = await openRig(dir.path, pageErrors, [
			join(FIXTURES, "app-ext.ts"),
			join(FIXTURES, "other-ext.ts"),
			join(FIXTURES, "qjs-app"),
		]);
		({ serve, page, api } = rig);
		await signIn(page, serve.url);
		sessionId = await newSession(page);
	});

	after(async () => {
		// The daemon may have been restarted by a test: stop the one running now.
		await closeRig({ ...rig, serve });
		dir[Symbol.dispose]();
	});

	const view = async () => {
		const reply = await api.call<View>("GET", `/api/pi/sessions/${sessionId}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	/** Every command an extension of this test ran, as `command args`. */
	const ran = async () =>
		(await view()).rows
			.filter((r) => r.kind === "custom" && r.customType === "hostile.ran")
			.map((r) => `${r.content?.command} ${r.content?.args}`);

	const mount = async (command: string, appId: string): Promise<Frame> => {
		await send(page, `/${command}`);
		const element = page.locator(`[data-testid="app-frame"][data-app-id="${appId}"]`);
		await element.waitFor();
		const frame = await (await element.elementHandle())!.contentFrame();
		assert.ok(frame, `the ${appId} frame has a document`);
		await frame.locator("#own").waitFor();
		return frame;
	};

	test("without a click nothing fires: not /name, not another extension's command, not its own", async () => {
		const frame = await mount("app-mount", "hostile");
		// The token used to be in the app's own document; now only the shell's closure holds it.
		assert.equal(await frame.locator("#token").textContent(), "no token in the document");
		// Script again, later, from inside the frame: a synthetic click and a direct post with the token.
		await frame.evaluate(`(() => {
			document.getElementById("own").click();
			document.getElementById("new").click();
			const token = "0".repeat(32);
			parent.postMessage({ type: "pichamber.command", token, command: "app-own", args: "evaluated-post" }, "*");
			parent.postMessage({ type: "pichamber.command", token, command: "name", args: "renamed-by-evaluate" }, "*");
		})()`);
		await page.waitForTimeout(1500);
		const now = await view();
		assert.equal(now.session.name, undefined, "the session was not renamed");
		assert.deepEqual(await ran(), [], "no command ran");
	});

	test("a real click on the app's own button runs its own command, and only that", async () => {
		const frame = page.frameLocator('[data-testid="app-frame"][data-app-id="hostile"]');
		await frame.locator("#own").click();
		await until(async () => (await ran()).includes("app-own real-click"), "the app's own command to run");
		// The click handler also posted /name during the click and /name plus other-cmd shortly after it.
		await page.waitForTimeout(1500);
		assert.deepEqual(await ran(), ["app-own real-click"]);
		assert.equal((await view()).session.name, undefined, "riding on a real click, /name was still refused");
	});

	test("a real click cannot run the chamber's commands or another extension's", async () => {
		const frame = page.frameLocator('[data-testid="app-frame"][data-app-id="hostile"]');
		for (const id of ["rename", "other", "new"]) {
			await page.waitForTimeout(500); // past the one-command-per-click spacing
			await frame.locator(`#${id}`).click();
		}
		await see(page.getByTestId("toast"), "belongs to another extension");
		await see(page.getByTestId("toast"), "cannot run the chamber's own /name");
		await page.waitForTimeout(1000);
		assert.equal((await view()).session.name, undefined, "not renamed");
		assert.deepEqual(await ran(), ["app-own real-click"], "other-cmd never ran");
		assert.equal(new URL(page.url()).searchParams.get("s"), sessionId, "no /new replaced the session");
	});

	test("the daemon decides: an app-originated run of /name or another extension's command is refused over HTTP", async () => {
		const refused = async (appId: string, command: string, args?: string) => {
			const reply = await api.call<{ error: { code: string; message: string } }>(
				"POST",
				`/api/pi/sessions/${sessionId}/apps/${appId}/command`,
				args === undefined ? { command } : { command, args },
			);
			assert.equal(reply.status, 403, `${appId} /${command}: ${JSON.stringify(reply.body)}`);
			assert.equal(reply.body.error.code, "app_command_refused");
			return reply.body.error.message;
		};
		for (const builtin of ["name", "new", "compact", "model", "thinking"]) {
			assert.match(await refused("hostile", builtin, "x"), /chamber's own/);
		}
		assert.match(await refused("hostile", "other-cmd", "http"), /another extension/);
		assert.match(await refused("hostile", "q-own", "http"), /another extension/);
		const missing = await api.call("POST", `/api/pi/sessions/${sessionId}/apps/nope/command`, { command: "app-own" });
		assert.equal(missing.status, 404);
		assert.equal((await view()).session.name, undefined);
		assert.deepEqual(await ran(), ["app-own real-click"]);
	});

	test("a QuickJS extension's app runs its own command and not the in-process extension's", async () => {
		const frameElement = await mount("q-mount", "qjs-app");
		assert.ok(frameElement);
		const frame = page.frameLocator('[data-testid="app-frame"][data-app-id="qjs-app"]');
		await frame.locator("#own").click();
		await until(async () => (await ran()).includes("q-own real-click"), "the QuickJS app's command to run");
		await page.waitForTimeout(500);
		await frame.locator("#other").click();
		await see(page.getByTestId("toast"), "belongs to another extension");
		await page.waitForTimeout(1000);
		assert.deepEqual(await ran(), ["app-own real-click", "q-own real-click"]);
	});

	test("the owner survives a daemon restart (it is written into the entry, not the extension's to name)", async () => {
		// pi writes the session file with the first answer.
		await send(page, "hello");
		await see(page.locator('[data-testid="row"][data-kind="assistant"]'), "hello");
		await serve.stop();
		serve = await startServe(
			[
				"-e",
				join(FIXTURES, "app-ext.ts"),
				"-e",
				join(FIXTURES, "other-ext.ts"),
				"-e",
				join(FIXTURES, "qjs-app"),
				"--state-dir",
				join(dir.path, "state"),
				"--ui-password",
				PASSWORD,
			],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		api = await apiFor(serve.url);
		const ok = await api.call("POST", `/api/pi/sessions/${sessionId}/apps/hostile/command`, {
			command: "app-own",
			args: "after-restart",
		});
		assert.equal(ok.status, 202, JSON.stringify(ok.body));
		const qjs = await api.call("POST", `/api/pi/sessions/${sessionId}/apps/qjs-app/command`, {
			command: "q-own",
			args: "after-restart",
		});
		assert.equal(qjs.status, 202, JSON.stringify(qjs.body));
		await until(async () => (await ran()).length === 4, "both commands to run after the restart");
		const forged = await api.call<{ error: { message: string } }>(
			"POST",
			`/api/pi/sessions/${sessionId}/apps/hostile/command`,
			{ command: "q-own" },
		);
		assert.equal(forged.status, 403, "the extension's own pierOwner value was replaced, not trusted");
		assert.deepEqual(pageErrors, []);
	});
});
