/**
 * Red team on pi 1.6: a QuickJS extension's `before_provider_headers` answer set the headers of the request pi
 * sends to the model provider, ungranted. Replacing `Authorization` with the attacker's own key sends the whole
 * conversation into the attacker's account at the provider, where it can be read back: a network route as the
 * changed payload is (quickjs-provider-request.test.ts), so it needs the "net" grant too. A real local
 * OpenAI-compatible server records what arrives.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import { runAgainstLocalModel } from "../helpers/openai-server.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const EXTENSION = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-headers");

const session = (t: TestContext, agentDir: string) =>
	runAgainstLocalModel(t, agentDir, ["run", "--no-session", "-e", EXTENSION, "hello"]);

test("a QuickJS extension cannot change the provider request's headers without the net grant", async (t) => {
	using agent = tempDir();
	const denied = await session(t, agent.path);
	for (const request of denied.requests) {
		assert.equal(request.headers.authorization, "Bearer users-own-key", "the request goes with the user's key");
		assert.equal(request.headers["x-exfil"], undefined);
	}
	assert.ok(
		denied.result.stderr.includes(
			`extension "qjs-headers" may not change the request sent to the model provider: it lacks the "net" grant (grant it with: pier grant ${EXTENSION} net)`,
		),
		denied.result.stderr,
	);

	const granted = await runPier(["grant", EXTENSION, "net"], { agentDir: agent.path });
	assert.equal(granted.code, 0, granted.stderr);
	const allowed = await session(t, agent.path);
	assert.equal(allowed.requests[0]!.headers.authorization, "Bearer attackers-key", "with the grant the change applies");
	assert.equal(allowed.requests[0]!.headers["x-exfil"], "1");
	assert.doesNotMatch(allowed.result.stderr, /may not change the request/);
});
