/**
 * Revoking a credential revokes what was minted through it, against a real `pier serve`. A stolen device token
 * mints a child token and pairing links, a link signs in a browser, that browser mints a token of its own and signs
 * out (so the chain has a gap): revoking the stolen token leaves none of them working. Every credential, browsers
 * and unused links included (`pier pair`'s too), is listed and can be revoked on its own without taking its parent
 * or siblings along; lineage survives a restart; a chain deeper than the bound cannot be minted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const PASSWORD = "correct horse battery";
const MAX_GENERATIONS = 16;

interface Credential {
	id: string;
	kind: "device" | "browser" | "pairing";
	mintedBy?: string;
	source?: string;
}

function bearer(url: string, token: string): ApiClient {
	const client = new ApiClient(url);
	client.bearer = token;
	return client;
}

async function mintToken(by: ApiClient, name: string): Promise<{ id: string; client: ApiClient }> {
	const reply = await by.call<{ id: string; token: string }>("POST", "/api/auth/tokens", { name });
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	return { id: reply.body.id, client: bearer(by.base, reply.body.token) };
}

async function mintLink(by: ApiClient): Promise<{ id: string; token: string }> {
	const reply = await by.call<{ id: string; token: string }>("POST", "/api/auth/pairing-links", {});
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	return reply.body;
}

/** A browser signed in with `token`; its id is the credential list's `current` when it asks. */
async function pairBrowser(url: string, token: string): Promise<{ id: string; client: ApiClient }> {
	const client = new ApiClient(url);
	const reply = await client.call("POST", "/api/auth/pair", { token });
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	const list = await client.call<{ current: string }>("GET", "/api/auth/credentials");
	assert.equal(list.status, 200, JSON.stringify(list.body));
	return { id: list.body.current, client };
}

async function credentials(by: ApiClient): Promise<Credential[]> {
	const reply = await by.call<{ credentials: Credential[] }>("GET", "/api/auth/credentials");
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	return reply.body.credentials;
}

const works = async (client: ApiClient) => (await client.call("GET", "/api/pi/sessions")).status;
const pairStatus = async (url: string, token: string) =>
	(await new ApiClient(url).call("POST", "/api/auth/pair", { token })).status;

describe("credential lineage", () => {
	const dir = tempDir("pier-lineage-");
	const stateDir = join(dir.path, "state");
	const options = { agentDir: join(dir.path, "agent"), cwd: dir.path };
	const args = ["--no-examples", "--state-dir", stateDir, "--ui-password", PASSWORD];
	let serve: Serve;
	let owner: ApiClient;

	before(async () => {
		serve = await startServe(args, options);
		owner = new ApiClient(serve.url);
		assert.equal((await owner.login(PASSWORD)).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("revoking a stolen token revokes the token, links and browsers it minted, through any gap", async () => {
		const stolen = await mintToken(owner, "laptop");
		const sibling = await mintToken(owner, "phone");
		// What the thief leaves behind before the owner notices.
		const child = await mintToken(stolen.client, "backdoor");
		const grandchild = await mintToken(child.client, "backdoor 2");
		const unused = await mintLink(stolen.client);
		const browser = await pairBrowser(serve.url, (await mintLink(stolen.client)).token);
		// A browser that mints a token and signs out: its token still descends from the stolen one.
		const hopper = await pairBrowser(serve.url, (await mintLink(stolen.client)).token);
		const hopperToken = await mintToken(hopper.client, "after the gap");
		assert.equal((await hopper.client.call("POST", "/api/auth/logout", {})).status, 200);
		for (const c of [stolen, child, grandchild, browser, hopperToken]) assert.equal(await works(c.client), 200);

		const listed = await credentials(owner);
		const byId = new Map(listed.map((c) => [c.id, c]));
		assert.equal(byId.get(child.id)?.mintedBy, stolen.id);
		assert.equal(byId.get(grandchild.id)?.mintedBy, child.id);
		assert.equal(byId.get(unused.id)?.kind, "pairing");
		assert.equal(byId.get(unused.id)?.mintedBy, stolen.id);
		assert.equal(byId.get(browser.id)?.kind, "browser", "a signed-in browser is listed");
		assert.equal(byId.get(browser.id)?.mintedBy, stolen.id);
		assert.equal(byId.has(hopper.id), false, "a signed-out browser is gone from the list");
		assert.equal(byId.get(hopperToken.id)?.mintedBy, hopper.id);

		const revoked = await owner.call<{ revoked: string[] }>("DELETE", `/api/auth/tokens/${stolen.id}`);
		assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
		assert.deepEqual(
			[...revoked.body.revoked].sort(),
			[stolen.id, child.id, grandchild.id, unused.id, browser.id, hopperToken.id].sort(),
		);
		for (const c of [stolen, child, grandchild, browser, hopperToken]) {
			assert.equal(await works(c.client), 401, `${c.id} is refused after its ancestor was revoked`);
		}
		const replay = await browser.client.call<{ error: { code: string } }>("GET", "/api/pi/sessions");
		assert.equal(replay.body.error.code, "unauthorized", "the browser's cookie and key are worth nothing");
		assert.equal(await pairStatus(serve.url, unused.token), 401, "the unused link signs no one in");
		// Nothing else was taken along: the owner and the stolen token's sibling still work.
		assert.equal(await works(owner), 200);
		assert.equal(await works(sibling.client), 200);
		const left = new Set((await credentials(owner)).map((c) => c.id));
		for (const id of revoked.body.revoked) assert.equal(left.has(id), false, `${id} is no longer listed`);
		assert.ok(left.has(sibling.id));
	});

	test("each credential can be revoked on its own, and only with what it minted", async () => {
		const parent = await mintToken(owner, "parent");
		const child = await mintToken(parent.client, "child");
		const link = await mintLink(parent.client);
		const browser = await pairBrowser(serve.url, (await mintLink(parent.client)).token);
		const other = new ApiClient(serve.url);
		assert.equal((await other.login(PASSWORD)).status, 200);
		const otherId = (await other.call<{ current: string }>("GET", "/api/auth/credentials")).body.current;
		const pierPair = await runPier(["pair", "--state-dir", stateDir], options);
		assert.equal(pierPair.code, 0, pierPair.stderr);
		const pierPairToken = new URL(pierPair.stdout.trim().split("\n")[0] ?? "").hash.replace(/^#pair=/, "");
		const inbox = (await credentials(owner)).filter((c) => c.source === "pier pair");
		assert.equal(inbox.length, 1, "the `pier pair` link is listed");

		const revoke = async (id: string) => {
			const reply = await owner.call<{ revoked: string[] }>("DELETE", `/api/auth/credentials/${id}`);
			assert.equal(reply.status, 200, JSON.stringify(reply.body));
			assert.deepEqual(reply.body.revoked, [id], "a credential that minted nothing goes alone");
		};
		await revoke(child.id);
		assert.equal(await works(child.client), 401);
		assert.equal(await works(parent.client), 200, "revoking a child leaves its parent");
		await revoke(browser.id);
		assert.equal(await works(browser.client), 401);
		assert.equal(await works(parent.client), 200, "and a browser it signed in");
		await revoke(link.id);
		assert.equal(await pairStatus(serve.url, link.token), 401);
		await revoke(otherId);
		assert.equal(await works(other), 401, "a password login's browser, revoked from another");
		await revoke(inbox[0]!.id);
		assert.equal(await pairStatus(serve.url, pierPairToken), 401, "the `pier pair` link is revoked");
		await revoke(parent.id);
		assert.equal(await works(parent.client), 401);
		assert.equal(await works(owner), 200);
		const missing = await owner.call<{ error: { code: string } }>("DELETE", `/api/auth/credentials/${parent.id}`);
		assert.equal(missing.status, 404);
		assert.equal(missing.body.error.code, "not_found");
	});

	test(`a chain deeper than ${MAX_GENERATIONS} generations is refused; revoking its root ends it all`, async () => {
		// The owner's browser is generation 0: tokens 1..16 below it may exist, the 17th may not.
		const chain = [await mintToken(owner, "gen 1")];
		for (let g = 2; g <= MAX_GENERATIONS; g++) chain.push(await mintToken(chain[chain.length - 1]!.client, `gen ${g}`));
		const deepest = chain[chain.length - 1]!.client;
		assert.equal(await works(deepest), 200);
		for (const [path, body] of [
			["/api/auth/tokens", { name: "too deep" }],
			["/api/auth/pairing-links", {}],
		] as const) {
			const refused = await deepest.call<{ error: { code: string; message: string } }>("POST", path, body);
			assert.equal(refused.status, 400, `${path}: ${JSON.stringify(refused.body)}`);
			assert.equal(refused.body.error.code, "generation_limit");
			assert.match(refused.body.error.message, /sign in with the password or a `pier pair` link/);
		}
		const revoked = await owner.call<{ revoked: string[] }>("DELETE", `/api/auth/credentials/${chain[0]!.id}`);
		assert.equal(revoked.body.revoked.length, MAX_GENERATIONS);
		assert.equal(await works(deepest), 401);
	});

	test("lineage survives a restart", async () => {
		const parent = await mintToken(owner, "before restart");
		const child = await mintToken(parent.client, "its child");
		assert.equal(await serve.stop(), 0);
		serve = await startServe(args, options);
		const restartedOwner = new ApiClient(serve.url);
		assert.equal((await restartedOwner.login(PASSWORD)).status, 200);
		const retarget = (c: ApiClient) => bearer(serve.url, c.bearer ?? "");
		assert.equal(await works(retarget(child.client)), 200);
		const revoked = await restartedOwner.call("DELETE", `/api/auth/tokens/${parent.id}`);
		assert.equal(revoked.status, 200);
		assert.equal(await works(retarget(child.client)), 401);
		owner = restartedOwner;
	});
});
