/**
 * Signing in to an OAuth MCP server from the chamber, in a real browser: a streamable-HTTP MCP server that answers
 * 401 until it gets a token of the local authorization server (both written in the suite: test/helpers/mcp-http.ts,
 * test/helpers/oauth-server.ts). The MCP view's Sign in opens the authorization server's page in a new tab; Allow
 * sends the browser back to the daemon's callback, which finishes pi's sign-in; the view shows the server connected
 * and its tool answers. The token never reaches the page, the API's answers, the transcript or the daemon's output;
 * the callback refuses a state it did not issue, and a state already used.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { type Serve, startServe } from "../helpers/chamber.js";
import { type McpHttpServer, startMcpHttpServer } from "../helpers/mcp-http.js";
import { type OAuthServer, startOAuthServer } from "../helpers/oauth-server.js";
import { tempDir } from "../helpers/pier-cli.js";
import { DESKTOP, idle, launchBrowser, newSession, PASSWORD, see, send, signIn, until } from "./browser-helpers.js";

/** Every file under `root`: the session transcripts, the daemon's state, pi's files. */
function filesUnder(root: string): string[] {
	return readdirSync(root, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name));
}

describe("signing in to an OAuth MCP server from the chamber", () => {
	const dir = tempDir("pier-mcp-oauth-ui-");
	const agentDir = join(dir.path, "agent");
	let auth: OAuthServer;
	let server: McpHttpServer;
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		auth = await startOAuthServer();
		server = await startMcpHttpServer({
			name: "secure",
			accepts: (token) => auth.accessTokens.has(token),
			authorizationServer: auth.issuer,
		});
		writeFileSync(
			join(agentDir, "mcp.json"),
			JSON.stringify({ mcpServers: { secure: { url: server.url, exposure: "direct" } } }),
		);
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
			agentDir,
			cwd: dir.path,
		});
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		await server?.close();
		await auth?.close();
		dir[Symbol.dispose]();
	});

	test("Sign in runs pi's OAuth flow in the browser and comes back to the chamber; the tool then answers", {
		timeout: 120_000,
	}, async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		const apiAnswers: string[] = [];
		page.on("response", async (response) => {
			if (new URL(response.url()).pathname.startsWith("/api/")) apiAnswers.push(await response.text().catch(() => ""));
		});
		await signIn(page, serve.url);
		await newSession(page);
		await page.getByTestId("mcp").click();
		const secure = page.locator('[data-testid="mcp-server"][data-server="secure"]');
		await until(
			async () => (await secure.getAttribute("data-state")) === "needs-sign-in",
			"secure needs a sign-in",
			30_000,
		);

		const opened = context.waitForEvent("page");
		await secure.getByTestId("mcp-signin").click();
		const tab = await opened;
		await tab.waitForURL((url) => url.href.startsWith(`${auth.issuer}/authorize`));
		await see(tab.getByText("Sign in to the test server"), "Sign in to the test server");
		assert.equal(await tab.evaluate("window.opener"), null, "the authorization page cannot reach the chamber");
		await tab.locator("#allow").click();
		await tab.waitForURL((url) => url.href.startsWith(`${serve.url.replace(/\/$/, "")}/api/mcp-oauth/callback`));
		await see(tab.getByTestId("mcp-signin-result"), 'Signed in to MCP server "secure"');
		assert.equal(auth.registeredRedirects.at(-1), new URL("/api/mcp-oauth/callback", serve.url).href);

		await until(async () => (await secure.getAttribute("data-state")) === "connected", "secure connected");
		assert.match((await secure.getByTestId("mcp-tools").textContent()) ?? "", /echo, whoami/);
		await send(page, 'mcp__secure__echo {"text":"after sign-in"}');
		await idle(page);
		await see(page.getByTestId("tool-result"), "secure echo: after sign-in");

		const [accessToken] = auth.accessTokens;
		assert.ok(accessToken);
		assert.ok(readFileSync(join(agentDir, "mcp-auth.json"), "utf8").includes(accessToken), "pi stored it");
		const secret = new RegExp(accessToken);
		assert.doesNotMatch(await page.content(), secret, "the page never shows the token");
		assert.doesNotMatch(await tab.content(), secret, "the callback page never shows the token");
		assert.doesNotMatch(apiAnswers.join("\n"), secret, "no API answer carries the token");
		assert.doesNotMatch(serve.output(), secret, "the daemon never logs the token");
		const holding = filesUnder(dir.path).filter((file) => readFileSync(file, "utf8").includes(accessToken));
		assert.deepEqual(holding, [join(agentDir, "mcp-auth.json")], "pi's credential store is the only file with it");

		// The callback takes only a state pi issued for a sign-in started here, once.
		const used = new URL(tab.url());
		const replay = await fetch(used);
		assert.equal(replay.status, 400, "a used state is refused");
		assert.match(await replay.text(), /Unknown or expired sign-in/);
		const forged = await fetch(new URL("/api/mcp-oauth/callback?state=forged&code=abc", serve.url));
		assert.equal(forged.status, 400, "a state the daemon never issued is refused");
		assert.equal(auth.accessTokens.size, 1, "neither got a token");
		await context.close();
	});
});
