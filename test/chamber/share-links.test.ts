/**
 * The share-link store on its own (src/chamber/share/share-links.ts): what survives a restart, expiry against the
 * clock, the bound on live links, and a corrupt file refused with its name rather than read as empty.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_LIVE_SHARES, ShareLinks } from "../../src/chamber/share/share-links.js";
import { tempDir } from "../helpers/pier-cli.js";

test("links survive a restart as they were: live, revoked or expired; only hashes are on disk", () => {
	using dir = tempDir("pier-share-links-");
	const path = join(dir.path, "share-links.json");
	let now = 1_000_000;
	const clock = () => now;
	const first = new ShareLinks(path, clock);
	const live = first.create({ sessionId: "s1", mode: "view", ttlMs: 60_000, mintedBy: "dev1" });
	const revoked = first.create({ sessionId: "s1", mode: "control", ttlMs: 60_000 });
	const short = first.create({ sessionId: "s2", mode: "view", ttlMs: 1_000 });
	const ended: string[] = [];
	first.onEnd(revoked.record.id, (reason) => ended.push(reason));
	assert.equal(first.revoke(revoked.record.id), true);
	assert.equal(first.revoke(revoked.record.id), false, "once");
	assert.deepEqual(ended, ["revoked"]);
	first.close();

	now += 1_000;
	const second = new ShareLinks(path, clock);
	assert.equal(second.check(live.token)?.ok, true);
	assert.deepEqual(second.check(revoked.token), {
		ok: false,
		ended: "revoked",
		record: second.byId(revoked.record.id),
	});
	assert.equal(second.check(short.token)?.ok, false, "expired at its second");
	assert.equal(second.check(`${live.token}x`), undefined, "an unknown token is a guess");
	assert.equal(second.check("pier_dt_not-a-share"), undefined);
	assert.deepEqual(
		second.list("s1").map((s) => s.id),
		[live.record.id],
	);
	assert.equal(second.revokeMintedBy(new Set(["dev1"])).length, 1);
	assert.equal(second.check(live.token)?.ok, false);
	second.close();
});

test("at most MAX_LIVE_SHARES live links; a corrupt file is an error naming it", () => {
	using dir = tempDir("pier-share-links-");
	const path = join(dir.path, "share-links.json");
	const links = new ShareLinks(path);
	for (let i = 0; i < MAX_LIVE_SHARES; i++) links.create({ sessionId: "s", mode: "view", ttlMs: 60_000 });
	assert.throws(() => links.create({ sessionId: "s", mode: "view", ttlMs: 60_000 }), /at most 256 share links/);
	links.close();

	writeFileSync(path, "{not json");
	assert.throws(
		() => new ShareLinks(path),
		(e: Error) => e.message.includes(path) && /not valid JSON/.test(e.message),
	);
	writeFileSync(path, JSON.stringify({ version: 1, links: [{ id: "x", mode: "admin" }] }));
	assert.throws(() => new ShareLinks(path), /links\[0\] must be/);
});
