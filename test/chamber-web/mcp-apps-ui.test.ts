/**
 * MCP Apps (SEP-1865) in a real browser, from real stdio MCP servers: test/fixtures/mcp/apps-server.mjs has a tool
 * with a `ui://` app, echo-server.mjs is a second server. The offline model calls the tool by name; the app renders
 * beside the call and is initialized by pier; a click calls back the app's own server; a call on load (no gesture),
 * a call to the other server's tool and a fetch to a domain the resource declared (pier's policy allows no network)
 * are all refused. Screenshots: docs/screenshots/mcp-app-desktop.png and mcp-app-phone.png.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { FrameLocator } from "playwright-core";
import { ECHO_SERVER } from "../helpers/mcp.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import {
	type BrowserRig,
	closeRig,
	idle,
	newSession,
	openRig,
	PHONE,
	see,
	send,
	shot,
	signIn,
	STEP,
} from "./browser-helpers.js";

const APPS_SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "apps-server.mjs");

describe("MCP Apps in the chamber", () => {
	const dir = tempDir("pier-mcp-apps-ui-");
	const calls = join(dir.path, "calls.log");
	const pageErrors: string[] = [];
	let rig: BrowserRig;
	let probe: Server;
	let probeHits = 0;
	let sessionId = "";
	let app: FrameLocator;

	const logged = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : []);

	before(async () => {
		probe = createServer((_req, res) => {
			probeHits++;
			res.writeHead(200, { "access-control-allow-origin": "*" }).end("probe");
		});
		await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
		const probeUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/probe`;
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		const mcpServers = {
			apps: {
				command: process.execPath,
				args: [APPS_SERVER],
				env: { APPS_PROBE_URL: probeUrl, APPS_CALL_LOG: calls },
				exposure: "direct",
			},
			echo: { command: process.execPath, args: [ECHO_SERVER], exposure: "direct" },
		};
		writeFileSync(join(dir.path, "agent", "mcp.json"), JSON.stringify({ mcpServers }));
		rig = await openRig(dir.path, pageErrors);
	});
	after(async () => {
		await closeRig(rig);
		await new Promise((resolve) => probe?.close(resolve));
		dir[Symbol.dispose]();
	});

	test("the tool's app renders beside its call, initialized by pier with the tool's input and result", {
		timeout: 60_000,
	}, async () => {
		const { page } = rig;
		await signIn(page, rig.serve.url);
		sessionId = await newSession(page);
		await send(page, 'mcp__apps__show_counter {"start":41}');
		await idle(page);
		const frame = page.getByTestId("mcp-app-frame");
		await frame.waitFor();
		assert.equal(await frame.getAttribute("data-server"), "apps");
		assert.equal(await frame.getAttribute("sandbox"), "allow-scripts");
		app = page.frameLocator('[data-testid="mcp-app-frame"]');
		await see(app.locator("#count"), "41");
		assert.equal(await app.locator("#host").textContent(), "pier");
		assert.equal(await app.locator("#theme").textContent(), "light, inline");
		assert.equal(await app.locator("#input").textContent(), '{"start":41}');
		// ui/notifications/size-changed set the frame's height (bounded) from the app's own.
		await see(app.locator("#fetch"), "fetch blocked");
		const height = (await frame.getAttribute("style"))?.replace(/^height:\s*/, "").replace(/;$/, "") ?? "";
		assert.match(height, /^\d+px$/);
		assert.ok(Number.parseInt(height, 10) >= 48 && Number.parseInt(height, 10) <= 720, height);
	});

	test("tool calls the app makes on its own (on load, after a forged gesture, from a script's click) are refused", async () => {
		await see(app.locator("#onload"), "on load: refused: pier refused tools/call: no click or key press");
		// The app forged a gesture report and clicked its own button from a script first: refused as well.
		await see(app.locator("#result"), "refused: pier refused tools/call: no click or key press");
		assert.deepEqual(logged(), ['show_counter {"start":41}']);
	});

	test("a click calls back the app's own server and the frame shows the result", async () => {
		await app.locator("#inc").click();
		await see(app.locator("#result"), "count is 42");
		assert.equal(await app.locator("#count").textContent(), "42");
		assert.deepEqual(logged(), ['show_counter {"start":41}', 'increment {"count":41}']);
		await shot(rig.page, "mcp-app-desktop.png");
	});

	test("a click that calls another server's tool is refused, saying why", async () => {
		await app.locator("#other").click();
		await see(
			app.locator("#other-result"),
			'refused: "echo" is a tool of MCP server "echo"; an app of "apps" may call only its own server\'s tools',
		);
		// Straight to the daemon, without the page, the same call is refused too.
		const entryId = await rig.page.getByTestId("mcp-app").getAttribute("data-entry-id");
		const direct = await rig.api.call("POST", `/api/pi/sessions/${sessionId}/mcp-apps/${entryId}/tools-call`, {
			name: "echo",
			arguments: { text: "direct" },
		});
		assert.equal(direct.status, 403);
		assert.equal((direct.body as { error?: { code?: string } }).error?.code, "mcp_app_refused");
		assert.equal(logged().length, 2);
	});

	test("the resource asked for network origins; pier's policy allows none, so its fetch failed", async () => {
		await see(app.locator("#fetch"), "fetch blocked");
		assert.equal(probeHits, 0, "the app's fetch never reached the probe server");
		const refused = await rig.page.getByTestId("mcp-app-csp").textContent();
		assert.match(refused ?? "", /127\.0\.0\.1.*https:\/\/api\.example\.com.*https:\/\/cdn\.example\.com/);
		const view = await rig.api.call<{ document: string; csp: { granted: Record<string, string[]> } }>(
			"GET",
			`/api/pi/sessions/${sessionId}/mcp-apps/${await rig.page.getByTestId("mcp-app").getAttribute("data-entry-id")}`,
		);
		assert.deepEqual(view.body.csp.granted, {
			connectDomains: [],
			resourceDomains: [],
			frameDomains: [],
			baseUriDomains: [],
		});
		assert.match(view.body.document, /connect-src 'none'/);
		assert.deepEqual(pageErrors, []);
	});

	test("the user's colour scheme reaches the app as host-context-changed", async () => {
		await rig.page.emulateMedia({ colorScheme: "dark" });
		await see(app.locator("#theme"), "dark, inline");
		await rig.page.emulateMedia({ colorScheme: "light" });
		await see(app.locator("#theme"), "light, inline");
	});

	test("on a phone the app fits the transcript", { timeout: 60_000 }, async () => {
		const context = await rig.browser.newContext(PHONE);
		context.setDefaultTimeout(STEP);
		const page = await context.newPage();
		await signIn(page, rig.serve.url);
		await page.goto(`${rig.serve.url}/?s=${sessionId}`);
		const phoneApp = page.frameLocator('[data-testid="mcp-app-frame"]');
		await see(phoneApp.locator("#count"), "41");
		await page.getByTestId("mcp-app").scrollIntoViewIfNeeded();
		await shot(page, "mcp-app-phone.png");
		await context.close();
	});
});
