/**
 * Remote MCP servers in pier's CLI: a streamable-HTTP server on 127.0.0.1 (test/helpers/mcp-http.ts) with a bearer
 * token taken from an environment variable, as `pier mcp add --bearer-token-env-var` configures it (pi's command), and
 * one that needs OAuth against a local authorization server (test/helpers/oauth-server.ts): `pier mcp login` runs
 * pi's own sign-in, with a browser stand-in that follows the authorization page's redirect over HTTP.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startMcpHttpServer } from "./helpers/mcp-http.js";
import { startOAuthServer } from "./helpers/oauth-server.js";
import { cleanEnv, PIER_BIN, type PierResult, runPier, tempDir } from "./helpers/pier-cli.js";

const TOKEN = "bearer-token-from-env-7f3a";

describe("a streamable-HTTP MCP server with a bearer token from the environment", () => {
	test("pier run answers its tool with the variable set; without it the server fails by name and the run goes on", async () => {
		await using server = await startMcpHttpServer({ name: "docs", accepts: (token) => token === TOKEN });
		using dir = tempDir();
		const added = await runPier(
			["mcp", "add", "docs", "--url", server.url, "--bearer-token-env-var", "DOCS_TOKEN", "--exposure", "direct"],
			{ agentDir: dir.path },
		);
		assert.equal(added.code, 0, added.stderr);
		const config = readFileSync(join(dir.path, "mcp.json"), "utf8");
		assert.match(config, /\$\{DOCS_TOKEN\}/, "the file names the variable");
		assert.doesNotMatch(config, new RegExp(TOKEN), "the file never holds the token");

		const answered = await runPier(["run", "--no-session", 'mcp__docs__echo {"text":"over http"}'], {
			agentDir: dir.path,
			env: { DOCS_TOKEN: TOKEN },
		});
		assert.equal(answered.code, 0, answered.stderr);
		assert.match(answered.stdout, /docs echo: over http/);
		assert.ok(server.authorizations.includes(`Bearer ${TOKEN}`), "the server got the token from the variable");
		assert.doesNotMatch(answered.stdout + answered.stderr, new RegExp(TOKEN), "the token is never printed");

		server.authorizations.length = 0;
		const missing = await runPier(["run", "--no-session", 'mcp__docs__echo {"text":"over http"}'], {
			agentDir: dir.path,
		});
		assert.equal(missing.code, 0, missing.stderr);
		assert.match(missing.stdout, /no active tool named "mcp__docs__echo"/, "the session went on without it");
		assert.match(missing.stderr, /docs.*DOCS_TOKEN|DOCS_TOKEN.*docs/, `the error names the server and the variable`);
		assert.deepEqual(server.authorizations, [], "nothing was sent without the token");
	});
});

/** `pier mcp login <server>`, with `xdg-open` a no-op and the authorization URL it prints handed to `browse`. */
function login(agentDir: string, server: string, browse: (url: string) => Promise<unknown>): Promise<PierResult> {
	const bin = join(agentDir, "bin");
	mkdirSync(bin, { recursive: true });
	writeFileSync(join(bin, "xdg-open"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [PIER_BIN, "mcp", "login", server], {
			cwd: agentDir,
			env: cleanEnv(agentDir, { PATH: `${bin}:${process.env.PATH}` }),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		let browsing: Promise<unknown> | undefined;
		const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
		child.stdout.setEncoding("utf8").on("data", (d: string) => {
			stdout += d;
			const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stdout)?.[1];
			if (url && !browsing) browsing = browse(url).catch(reject);
		});
		child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
		child.on("error", reject);
		child.on("close", async (code) => {
			clearTimeout(timer);
			await browsing;
			resolve({ code, stdout, stderr });
		});
	});
}

describe("a streamable-HTTP MCP server that needs OAuth (a local authorization server)", () => {
	test("pier mcp login runs pi's sign-in in the browser, stores the token, and pier run answers the tool", async () => {
		await using auth = await startOAuthServer();
		await using server = await startMcpHttpServer({
			name: "secure",
			accepts: (token) => auth.accessTokens.has(token),
			authorizationServer: auth.issuer,
		});
		using dir = tempDir();
		writeFileSync(
			join(dir.path, "mcp.json"),
			JSON.stringify({ mcpServers: { secure: { url: server.url, exposure: "direct" } } }),
		);

		const before = await runPier(["run", "--no-session", 'mcp__secure__echo {"text":"hi"}'], { agentDir: dir.path });
		assert.match(before.stdout, /no active tool named "mcp__secure__echo"/);
		assert.match(before.stderr, /secure: needs sign-in/, "pi says the server needs a sign-in");

		let landed: { status: number; body: string } | undefined;
		const signedIn = await login(dir.path, "secure", async (url) => {
			landed = await auth.approve(url);
		});
		assert.equal(signedIn.code, 0, `${signedIn.stdout}\n${signedIn.stderr}`);
		assert.match(signedIn.stdout, /Signed in to MCP server "secure" \(2 tools\)/);
		assert.equal(landed?.status, 200, "pi's loopback callback finished the flow");
		assert.match(landed?.body ?? "", /Signed in to the MCP server/);
		assert.match(auth.registeredRedirects[0] ?? "", /^http:\/\/127\.0\.0\.1:\d+\/callback$/, "pi registered itself");

		const [accessToken] = auth.accessTokens;
		assert.ok(accessToken);
		const stored = readFileSync(join(dir.path, "mcp-auth.json"), "utf8");
		assert.ok(stored.includes(accessToken), "pi stored the token in its mcp-auth.json");
		assert.equal(statSync(join(dir.path, "mcp-auth.json")).mode & 0o077, 0, "only its owner can read it");
		assert.doesNotMatch(signedIn.stdout + signedIn.stderr, new RegExp(accessToken), "the token is never printed");

		const after = await runPier(["run", "--no-session", 'mcp__secure__echo {"text":"signed in"}'], {
			agentDir: dir.path,
		});
		assert.equal(after.code, 0, after.stderr);
		assert.match(after.stdout, /secure echo: signed in/);
		assert.doesNotMatch(after.stdout + after.stderr, new RegExp(accessToken));
	});
});
