/** `pier attach`'s pure decisions: which session it means, and where a device token may go. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { chooseSession } from "../../src/cli/attach/command.js";
import { isLoopbackHost, remoteCredential } from "../../src/cli/attach/credential.js";
import type { SessionSummary } from "../../src/chamber/wire.js";

const session = (id: string, modifiedAt: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
	id,
	cwd: "/p",
	createdAt: modifiedAt,
	modifiedAt,
	messageCount: 1,
	live: false,
	streaming: false,
	...extra,
});

const list = [
	session("aaa111", "2026-12-01T10:00:00Z", { name: "notes" }),
	session("aab222", "2026-12-03T10:00:00Z"),
	session("bbb333", "2026-12-02T10:00:00Z", { live: true }),
	session("ccc444", "2026-12-01T09:00:00Z", { live: true, streaming: true }),
];

test("without a name, attach takes the streaming session, then the live one that changed last, then the newest", () => {
	assert.equal(chooseSession(list, undefined).id, "ccc444");
	assert.equal(chooseSession(list.slice(0, 3), undefined).id, "bbb333");
	assert.equal(chooseSession(list.slice(0, 2), undefined).id, "aab222");
	assert.throws(() => chooseSession([], undefined), /no session yet/);
});

test("a session is named by id, unique id prefix or name; an ambiguous or unknown one is refused", () => {
	assert.equal(chooseSession(list, "bbb333").id, "bbb333");
	assert.equal(chooseSession(list, "aab").id, "aab222");
	assert.equal(chooseSession(list, "notes").id, "aaa111");
	assert.throws(() => chooseSession(list, "aa"), /"aa" starts 2 sessions' ids: aaa111, aab222/);
	assert.throws(() => chooseSession(list, "zzz"), /no session "zzz"/);
});

test("a device token goes over https, or plain http to loopback only", () => {
	assert.deepEqual(remoteCredential("https://chamber.example/", "pier_dt_x"), { kind: "bearer", token: "pier_dt_x" });
	for (const url of ["http://127.0.0.1:7777/", "http://127.9.9.9/", "http://localhost:1/", "http://[::1]:7777/"])
		assert.equal(remoteCredential(url, "t").kind, "bearer", url);
	for (const url of ["http://10.0.0.2:7777/", "http://128.0.0.1/", "http://localhost.example/", "http://[::2]/"])
		assert.throws(() => remoteCredential(url, "t"), /refusing to send a device token over plain http/, url);
	assert.throws(() => remoteCredential("ftp://x/", "t"), /http or https/);
	assert.throws(() => remoteCredential("not a url", "t"), /--url must be/);
	assert.throws(() => remoteCredential("https://x/", undefined), /needs a device token/);
	assert.equal(isLoopbackHost("[::1]"), true);
	assert.equal(isLoopbackHost("0.0.0.0"), false);
});
