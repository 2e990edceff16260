/**
 * The MCP view in a real browser: a real stdio MCP server (test/fixtures/mcp/echo-server.mjs) and one that writes to
 * stderr and exits, both in the agent dir's mcp.json. A tool call through the server shows the server's name in
 * its row; pi's start-up report of the failed server is in the transcript once; the view shows each server, its
 * source file and the failed one's stderr tail; Disable changes mcp.json as pi's /mcp does; Enable and Reconnect
 * start the server again.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import {
	DESKTOP,
	idle,
	launchBrowser,
	newSession,
	PASSWORD,
	rows,
	see,
	send,
	signIn,
	until,
} from "./browser-helpers.js";

const ECHO_SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "echo-server.mjs");
/** Its stderr is hostile too: markup in it must show as text. */
const MARKUP = '<img src=x onerror="document.title=`pwned`">';
const BROKEN = `process.stderr.write('broken-server: cannot open /nonexistent/db.sqlite ${MARKUP}\\n'); process.exit(2)`;

describe("the MCP view", () => {
	const dir = tempDir("pier-mcp-ui-");
	const agentDir = join(dir.path, "agent");
	const mcpJson = join(agentDir, "mcp.json");
	const pids = join(dir.path, "pids");
	let serve: Serve;
	let browser: Browser;
	let config: unknown;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		config = {
			mcpServers: {
				echo: { command: process.execPath, args: [ECHO_SERVER], env: { MCP_PID_FILE: pids }, exposure: "direct" },
				broken: { command: process.execPath, args: ["-e", BROKEN] },
			},
		};
		writeFileSync(mcpJson, `${JSON.stringify(config, null, 2)}\n`);
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir,
			cwd: dir.path,
		});
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("shows the servers, disables one (mcp.json changes), enables and reconnects it, shows the stderr tail", {
		timeout: 120_000,
	}, async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await newSession(page);
		await send(page, 'mcp__echo__echo {"text":"through the server"}');
		await idle(page);
		const call = page.locator('[data-testid="tool-call"][data-tool-name="mcp__echo__echo"]');
		assert.equal(await call.getByTestId("tool-server").textContent(), "echo");
		await see(page.getByTestId("tool-result"), "echo: through the server");

		const report = await see(rows(page, "error"), "MCP servers need attention");
		assert.match((await report.textContent()) ?? "", /broken: failed/);
		assert.equal(await rows(page, "error").filter({ hasText: "MCP servers need attention" }).count(), 1);

		await page.getByTestId("mcp").click();
		const echo = page.locator('[data-testid="mcp-server"][data-server="echo"]');
		const broken = page.locator('[data-testid="mcp-server"][data-server="broken"]');
		await echo.waitFor({ timeout: 15_000 });
		assert.equal(await echo.getAttribute("data-state"), "connected");
		assert.match((await echo.getByTestId("mcp-source").textContent()) ?? "", /global: .*agent\/mcp\.json/);
		assert.match((await echo.getByTestId("mcp-tools").textContent()) ?? "", /echo, pid/);
		assert.equal(await echo.getByTestId("mcp-exposure").textContent(), "direct");
		assert.equal(await broken.getAttribute("data-state"), "failed");
		assert.match(
			(await broken.getByTestId("mcp-last-error").textContent()) ?? "",
			/broken-server: cannot open \/nonexistent\/db\.sqlite <img src=x onerror="document\.title=`pwned`">/,
		);
		assert.equal(await broken.locator("img").count(), 0, "the server's stderr is text, never markup");
		assert.notEqual(await page.title(), "pwned");

		await echo.getByTestId("mcp-disable").click();
		await until(async () => (await echo.getAttribute("data-state")) === "disabled", "echo disabled");
		const saved = JSON.parse(readFileSync(mcpJson, "utf8")) as { mcpServers: Record<string, { enabled?: boolean }> };
		assert.equal(saved.mcpServers.echo?.enabled, false);
		assert.equal(saved.mcpServers.broken?.enabled, undefined);

		await echo.getByTestId("mcp-enable").click();
		await until(async () => (await echo.getAttribute("data-state")) === "connected", "echo connected again");
		// pi drops `enabled` again rather than writing the default.
		assert.deepEqual(JSON.parse(readFileSync(mcpJson, "utf8")), config);
		const started = readFileSync(pids, "utf8").trim().split("\n").length;
		await echo.getByTestId("mcp-reconnect").click();
		await until(
			async () => readFileSync(pids, "utf8").trim().split("\n").length === started + 1,
			"a new server process after Reconnect",
		);
		await until(async () => (await echo.getAttribute("data-state")) === "connected", "echo connected after Reconnect");
		await context.close();
	});
});
