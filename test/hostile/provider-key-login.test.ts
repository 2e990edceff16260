/**
 * Red team on pi 1.6: the chamber's `PUT /api/pi/providers/<id>/key` stores a key through pi's own API-key login
 * (ModelRuntime.login), answering its questions with the key. Some of pi's providers ask more than the key: a
 * choice of method (google-vertex, amazon-bedrock), an account id (cloudflare-*). The key answered the choice, and
 * pi's "Unknown … auth method: <key>" came back in the response; "aws-profile" as the key stored an AWS_PROFILE; a
 * Cloudflare key was stored as the account id too, which pi puts in the request URL's path. The route is driven
 * through its real Hono app over a real agent directory and pi's real ModelRuntime.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { providerRoutes } from "../../src/chamber/provider-routes.js";
import { tempDir } from "../helpers/pier-cli.js";

const SECRET = "sk-red-team-do-not-echo-51c2";

function setKey(agentDir: string, provider: string, apiKey: string) {
	return providerRoutes({ dir: () => agentDir }).request(`/${provider}/key`, {
		method: "PUT",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ apiKey }),
	});
}

const stored = (agentDir: string): Record<string, unknown> => {
	const file = join(agentDir, "auth.json");
	return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
};

for (const [provider, apiKey] of [
	["google-vertex", SECRET],
	["amazon-bedrock", SECRET],
	["amazon-bedrock", "aws-profile"],
	["cloudflare-workers-ai", SECRET],
	["cloudflare-ai-gateway", SECRET],
] as const) {
	test(`${provider}: a key route that pi's login asks more of stores nothing and echoes nothing (${apiKey})`, async () => {
		using dir = tempDir();
		const agentDir = join(dir.path, "agent");
		mkdirSync(agentDir);
		const reply = await setKey(agentDir, provider, apiKey);
		const text = await reply.text();
		assert.equal(reply.status, 409, text);
		const body = JSON.parse(text) as { error?: { code?: string; message?: string } };
		assert.equal(body.error?.code, "no_api_key_login", text);
		assert.match(body.error?.message ?? "", /\/login/, "the refusal says where to set it up");
		assert.ok(!text.includes(SECRET), `the response carried the key: ${text}`);
		assert.deepEqual(stored(agentDir), {}, "nothing may be stored from a half-answered login");
	});
}

test("a provider whose API-key login asks for the key alone stores it (the route works)", async () => {
	using dir = tempDir();
	const agentDir = join(dir.path, "agent");
	mkdirSync(agentDir);
	const reply = await setKey(agentDir, "openai", SECRET);
	const text = await reply.text();
	assert.equal(reply.status, 200, text);
	assert.ok(!text.includes(SECRET));
	assert.deepEqual(stored(agentDir).openai, { type: "api_key", key: SECRET });
});
