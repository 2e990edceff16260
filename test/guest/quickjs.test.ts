/**
 * The guest conformance suite (conformance.ts) against QuickJS: a guest in the real worker pool. Plus what only
 * a sandbox can do: interrupt a synchronous spin and answer it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { conformance } from "./conformance.js";
import { manifest, startGuest } from "./peers.js";

conformance("quickjs");

describe("QuickJS guest: a synchronous spin", () => {
	test("a busy loop in a non-async handler is interrupted and answered, and the guest goes on", async () => {
		const peer = startGuest("quickjs", "spin.mjs", manifest("spin", ["commands"]), 300);
		try {
			await peer.start();
			const began = Date.now();
			const spun = await peer.invoke({ kind: "command", name: "spin", arguments: "" });
			assert.equal(spun.status, "failure");
			assert.equal(spun.error.code, "extension_error");
			assert.match(spun.error.message, /interrupted/);
			assert.ok(Date.now() - began < 1_500, "answered at the deadline, not by the watchdog");
			assert.deepEqual(await peer.invoke({ kind: "command", name: "ok", arguments: "" }), {
				status: "success",
				value: "still here",
			});
		} finally {
			await peer.stop();
		}
	});
});

describe("QuickJS guest: the core is the runtime's", () => {
	test("the extension cannot import pier:core modules, and the transport's send is gone before it runs", async () => {
		const refused = startGuest("quickjs", "core-import.mjs", manifest("core-import", ["commands"]));
		try {
			await assert.rejects(refused.handshake(), /import "pier:core\/guest.mjs" refused: only relative/);
		} finally {
			await refused.stop();
		}
		const peer = startGuest("quickjs", "globals.mjs", manifest("globals", ["commands"]));
		try {
			await peer.start();
			assert.deepEqual(await peer.invoke({ kind: "command", name: "globals", arguments: "" }), {
				status: "success",
				value: { send: "undefined", manifest: "undefined" },
			});
		} finally {
			await peer.stop();
		}
	});
});
