/**
 * The chamber's sign-in routes against a real `pier serve`, a local OAuth authorization server and an MCP server
 * that wants its tokens (test/helpers/oauth-server.ts, test/helpers/mcp-http.ts), with the HTTP browser stand-in in
 * place of Chromium: who may start a sign-in, for which server, what the callback accepts, and that a finished
 * sign-in connects the session's server without a token in any answer.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { McpListView, McpSignInAnswer } from "../../src/chamber/wire.js";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { type McpHttpServer, startMcpHttpServer } from "../helpers/mcp-http.js";
import { type OAuthServer, startOAuthServer } from "../helpers/oauth-server.js";
import { tempDir } from "../helpers/pier-cli.js";

const dir = tempDir("pier-chamber-mcp-signin-");
const agentDir = join(dir.path, "agent");
let auth: OAuthServer;
let secure: McpHttpServer;
let open: McpHttpServer;
let serve: Serve;
let api: ApiClient;
let id: string;
let stream: EventReader;

before(async () => {
	auth = await startOAuthServer();
	secure = await startMcpHttpServer({
		name: "secure",
		accepts: (token) => auth.accessTokens.has(token),
		authorizationServer: auth.issuer,
	});
	open = await startMcpHttpServer({ name: "open", accepts: () => true });
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(
		join(agentDir, "mcp.json"),
		JSON.stringify({
			mcpServers: {
				secure: { url: secure.url, exposure: "direct" },
				open: { url: open.url, headers: { Authorization: "Bearer anything" } },
			},
		}),
	);
	({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
	({ id, stream } = await api.newSession());
});

after(async () => {
	stream?.close();
	await serve?.stop();
	await secure?.close();
	await open?.close();
	await auth?.close();
	dir[Symbol.dispose]();
});

const signin = (server: string) => api.call<McpSignInAnswer>("POST", `/api/pi/sessions/${id}/mcp/${server}/signin`, {});
const callback = (query: string) => fetch(new URL(`/api/mcp-oauth/callback?${query}`, serve.url));

async function stateOf(server: string): Promise<string | undefined> {
	for (let i = 0; i < 100; i++) {
		const list = (await api.call<McpListView>("GET", `/api/pi/sessions/${id}/mcp`)).body;
		const found = list.servers.find((s) => s.name === server);
		if (found && found.state !== "starting" && found.state !== "connecting") return found.state;
		await new Promise((done) => setTimeout(done, 200));
	}
	return undefined;
}

test("a sign-in starts only for a signed-in user, for a server pi offers one to", async () => {
	assert.equal(await stateOf("secure"), "needs-sign-in");
	assert.equal(await stateOf("open"), "connected");
	const anonymous = await fetch(new URL(`/api/pi/sessions/${id}/mcp/secure/signin`, serve.url), {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: "{}",
	});
	assert.equal(anonymous.status, 401);
	const unknown = await signin("nowhere");
	assert.equal(unknown.status, 404);
	assert.match(JSON.stringify(unknown.body), /secure/);
	const connected = await signin("open");
	assert.equal(connected.status, 409);
	assert.match(JSON.stringify(connected.body), /mcp_not_offered.*open/);
	assert.equal(auth.registeredRedirects.length, 0, "nothing reached the authorization server");
});

test("the callback finishes only a state it issued, once; a refusal is shown and ends that sign-in", async () => {
	const refused = await signin("secure");
	assert.equal(refused.status, 200, JSON.stringify(refused.body));
	assert.ok("authorizationUrl" in refused.body);
	const state = new URL(refused.body.authorizationUrl).searchParams.get("state")!;
	assert.equal(auth.registeredRedirects.at(-1), new URL("/api/mcp-oauth/callback", serve.url).href);

	const forged = await callback("state=not-issued&code=attacker-code");
	assert.equal(forged.status, 400);
	assert.match(await forged.text(), /Unknown or expired sign-in/);
	const denied = await callback(
		`state=${state}&error=access_denied&error_description=${encodeURIComponent("<b>no</b>")}`,
	);
	assert.equal(denied.status, 400);
	const page = await denied.text();
	assert.match(page, /was refused/);
	assert.match(page, /&#60;b&#62;no&#60;\/b&#62;/, "the authorization server's words are text");
	assert.equal(denied.headers.get("content-security-policy"), "default-src 'none'");
	const again = await callback(`state=${state}&code=late`);
	assert.equal(again.status, 400, "a state finishes at most one sign-in");
	assert.equal(auth.accessTokens.size, 0);
	assert.equal(await stateOf("secure"), "needs-sign-in");
});

test("Allow at the authorization server signs the session in: the server connects, no answer holds a token", async () => {
	const started = await signin("secure");
	assert.equal(started.status, 200, JSON.stringify(started.body));
	assert.ok("authorizationUrl" in started.body);
	const landed = await auth.approve(started.body.authorizationUrl);
	assert.equal(landed.status, 200, landed.body);
	assert.match(landed.body, /Signed in to MCP server &#34;secure&#34;/);
	assert.equal(await stateOf("secure"), "connected");
	const [token] = auth.accessTokens;
	assert.ok(token);
	const list = await api.call<McpListView>("GET", `/api/pi/sessions/${id}/mcp`);
	for (const text of [landed.body, JSON.stringify(list.body), JSON.stringify(started.body), serve.output()])
		assert.ok(!text.includes(token), "no answer, page or log line carries the token");
	const again = await signin("secure");
	assert.equal(again.status, 409, "a connected server is offered no sign-in");
});
