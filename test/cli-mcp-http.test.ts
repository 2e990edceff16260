/**
 * Remote MCP servers in pier's CLI: a streamable-HTTP server on 127.0.0.1 (test/helpers/mcp-http.ts) with a bearer
 * token taken from an environment variable, as `pier mcp add --bearer-token-env-var` configures it (pi's command).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { startMcpHttpServer } from "./helpers/mcp-http.js";
import { runPier, tempDir } from "./helpers/pier-cli.js";

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
