/**
 * The chamber's trust dialog in a real browser lists a project's `.pi/mcp.json` among what the project would load:
 * each server's name and command line or URL, nothing of its env, headers or URL secrets; a malformed file gets a
 * note. Trusting the project starts its server (a real stdio MCP server, test/fixtures/mcp/echo-server.mjs), whose
 * tool then answers in the transcript.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { ECHO_SERVER, MCP_SECRETS, mcpConfigWithSecrets } from "../helpers/mcp.js";
import { tempDir } from "../helpers/pier-cli.js";
import { type BrowserRig, closeRig, openRig, see, send, until } from "./browser-helpers.js";

const SERVER = ECHO_SERVER;
const SECRETS = MCP_SECRETS;

function project(root: string, name: string, mcpJson: string): string {
	const dir = join(root, name);
	mkdirSync(join(dir, ".pi"), { recursive: true });
	writeFileSync(join(dir, ".pi", "mcp.json"), mcpJson);
	return dir;
}

/** Asks for a session in `cwd`: the daemon answers with the trust dialog. */
async function ask(page: Page, cwd: string): Promise<void> {
	await page.getByTestId("new-session-cwd").fill(cwd);
	await page.getByTestId("new-session").click();
	await page.getByTestId("trust-mcp").waitFor();
}

/** Answers the dialog with Trust; resolves with the new session's id once the app shows it. */
async function trust(page: Page): Promise<string> {
	const before = new URL(page.url()).searchParams.get("s");
	await page.getByTestId("trust-yes").click();
	return until(() => {
		const now = new URL(page.url()).searchParams.get("s");
		return now && now !== before ? now : undefined;
	}, "the trusted project's session");
}

describe("the trust dialog lists a project's MCP servers", () => {
	const dir = tempDir("pier-trust-mcp-ui-");
	const pageErrors: string[] = [];
	let rig: BrowserRig;

	before(async () => {
		rig = await openRig(dir.path, pageErrors, []);
		await rig.page.goto(rig.serve.url);
		await rig.page.getByTestId("login-password").fill("correct horse battery");
		await rig.page.getByTestId("login-submit").click();
		await rig.page.getByTestId("session-list").waitFor();
	});

	after(async () => {
		await closeRig(rig);
		dir[Symbol.dispose]();
	});

	test("each server with its command line or URL and no secret; trusting starts the server", async () => {
		const { page } = rig;
		const pids = join(dir.path, "pids");
		const cwd = project(dir.path, "with-servers", JSON.stringify(mcpConfigWithSecrets(pids)));
		await ask(page, cwd);
		await see(page.getByTestId("trust-detail"), ".pi/mcp.json");
		const servers = page.getByTestId("trust-mcp-server");
		assert.deepEqual(await servers.allInnerTexts(), [`echo: node ${SERVER}`, "docs: http://127.0.0.1:9/mcp?…"]);
		assert.doesNotMatch(await page.content(), SECRETS);
		assert.equal(existsSync(pids), false, "asking starts nothing");

		await trust(page);
		await send(page, 'mcp__echo__echo {"text":"hi from the browser"}');
		await see(page.getByTestId("tool-result"), "echo: hi from the browser");
		assert.equal(readFileSync(pids, "utf8").trim().split("\n").length, 1, "trusted, the server started once");
	});

	test("a malformed .pi/mcp.json is named with a note, and trusting the project still opens its session", async () => {
		const { page } = rig;
		const cwd = project(dir.path, "malformed", '{"mcpServers": {"echo": {"command": "node",}}}');
		await ask(page, cwd);
		await see(page.getByTestId("trust-mcp"), /\.pi\/mcp\.json is malformed: it is not valid JSON \(.*line 1/);
		assert.equal(await page.getByTestId("trust-mcp-server").count(), 0);
		await trust(page);
		await page.getByTestId("composer").waitFor();
		assert.deepEqual(pageErrors, []);
	});
});
