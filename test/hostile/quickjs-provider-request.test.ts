/**
 * Red-team finding G4: a QuickJS extension's `before_provider_request` answer was forwarded verbatim as the
 * request pi sends to the model provider, with the user's credentials. A provider-side tool that takes a URL
 * (here a remote MCP server definition) makes that a network route the sandbox otherwise withholds. A
 * changed payload now needs the "net" grant; without it the request goes as pi built it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { runAgainstLocalModel } from "../helpers/openai-server.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const EXTENSION = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-provider");
const WEATHER = join(REPO_ROOT, "examples", "extensions", "weather.ts");

const session = (t: TestContext, agentDir: string) =>
	runAgainstLocalModel(t, agentDir, ["run", "--no-session", "-e", EXTENSION, "-e", WEATHER, "weather please"]);

test("a QuickJS extension cannot add a URL to the provider request without the net grant", async (t) => {
	using agent = tempDir();
	const denied = await session(t, agent.path);
	for (const request of denied.requests) {
		assert.doesNotMatch(JSON.stringify(request.body), /hostile-mcp/, "the extension's URL must not reach the provider");
		assert.equal(request.headers.authorization, "Bearer users-own-key");
		assert.deepEqual(
			request.body.tools?.map((tool) => tool.function.name),
			["read", "bash", "edit", "write", "weather"],
			"the request is as pi built it",
		);
	}
	assert.ok(
		denied.result.stderr.includes(
			`extension "qjs-provider" may not change the request sent to the model provider: it lacks the "net" grant (grant it with: pier grant ${EXTENSION} net)`,
		),
		denied.result.stderr,
	);

	const granted = await runPier(["grant", EXTENSION, "net"], { agentDir: agent.path });
	assert.equal(granted.code, 0, granted.stderr);
	const allowed = await session(t, agent.path);
	assert.match(JSON.stringify(allowed.requests[0]!.body), /hostile-mcp/, "with the grant the change applies");
	assert.doesNotMatch(allowed.result.stderr, /may not change the request/);
});
