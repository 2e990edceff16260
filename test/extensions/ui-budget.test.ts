/** The per-extension UI budget and its token bucket, on a hand-driven clock (no timing). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { TokenBucket } from "../../src/extensions/host/token-bucket.js";
import { EXTENSION_UI_LIMITS, UiBudget } from "../../src/extensions/host/ui-budget.js";

function clock() {
	let now = 0;
	return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("TokenBucket", () => {
	test("gives the burst, then the rate; a refusal takes nothing", () => {
		const c = clock();
		const bucket = new TokenBucket(10, 3, c.now);
		assert.deepEqual([bucket.take(), bucket.take(), bucket.take(), bucket.take()], [true, true, true, false]);
		c.advance(100); // one token
		assert.equal(bucket.take(2), false);
		assert.equal(bucket.take(1), true);
		c.advance(60_000); // refills to the burst, not beyond
		assert.equal(bucket.take(3), true);
		assert.equal(bucket.take(), false);
	});
});

describe("UiBudget", () => {
	const widget = (key: string, lines?: string[]) =>
		lines
			? { type: "widget" as const, key, lines, placement: "above_editor" as const }
			: { type: "widget" as const, key, placement: "above_editor" as const };

	test("the key after the cap is refused by name; updating a held key and clearing one are not", () => {
		const budget = new UiBudget("ext", clock().now);
		for (let i = 0; i < EXTENSION_UI_LIMITS.widgetKeys; i++)
			assert.equal(typeof budget.admit(widget(`k${i}`, ["x"])), "function");
		const refused = budget.admit(widget("one-more", ["x"]));
		assert.equal(
			refused,
			`widget "one-more" refused: extension ext already holds ${EXTENSION_UI_LIMITS.widgetKeys} widget keys (the limit per extension); clear one first (set it to undefined)`,
		);
		assert.equal(typeof budget.admit(widget("k0", ["updated"])), "function");
		assert.equal(typeof budget.admit(widget("k0")), "function");
		assert.equal(typeof budget.admit(widget("one-more", ["x"])), "function");
	});

	test("a key the session refused is not counted", async () => {
		const budget = new UiBudget("ext", clock().now);
		for (let i = 0; i < EXTENSION_UI_LIMITS.statusKeys; i++) {
			const pass = budget.admit({ type: "status", key: `s${i}`, text: "t" });
			assert.equal(typeof pass, "function");
			if (i === 0)
				await assert.rejects((pass as (p: Promise<unknown>) => Promise<unknown>)(Promise.reject(new Error("no"))));
		}
		assert.equal(typeof budget.admit({ type: "status", key: "last", text: "t" }), "function");
		assert.equal(typeof budget.admit({ type: "status", key: "too-many", text: "t" }), "string");
	});

	test("notifications and requests have their rates; content has its own", () => {
		const c = clock();
		const budget = new UiBudget("ext", c.now);
		const notify = { type: "notify" as const, message: "hi", level: "info" as const };
		let admitted = 0;
		while (typeof budget.admit(notify) !== "string") admitted++;
		assert.equal(admitted, EXTENSION_UI_LIMITS.notificationBurst);
		assert.match(
			String(budget.admit(notify)),
			/^notification refused: extension ext exceeded 10 notifications per second/,
		);
		c.advance(1000);
		assert.equal(typeof budget.admit(notify), "function");

		const big = new UiBudget("big", c.now);
		const lines = Array(100).fill("x".repeat(2000));
		let widgets = 0;
		while (typeof big.admit(widget(`w${widgets}`, lines)) !== "string") widgets++;
		assert.equal(widgets, Math.floor(EXTENSION_UI_LIMITS.contentCharBurst / 200_000));
		assert.match(String(big.admit(widget("w0", lines))), /characters of UI content per second/);

		const chatty = new UiBudget("chatty", c.now);
		let requests = 0;
		while (typeof chatty.admit({ type: "get_editor_text" }) !== "string") requests++;
		assert.equal(requests, EXTENSION_UI_LIMITS.requestBurst);
		assert.match(
			String(chatty.admit({ type: "get_editor_text" })),
			/exceeded 100 UI requests per second \(burst 200\)/,
		);
	});

	test("tool partial updates spend the same budget; the last one before a result passes and is paid for", () => {
		const c = clock();
		const budget = new UiBudget("ext", c.now);
		let partials = 0;
		while (budget.admitToolUpdate(10, false)) partials++;
		assert.equal(partials, EXTENSION_UI_LIMITS.requestBurst, "the request burst, then refused");
		assert.match(String(budget.admit({ type: "get_editor_text" })), /exceeded 100 UI requests per second/);
		assert.equal(budget.admitToolUpdate(10, true), true, "the final one always passes");
		c.advance(10); // one token back at 100/s, the final one's debt paid
		assert.equal(budget.admitToolUpdate(10, false), false);
		c.advance(10);
		assert.equal(budget.admitToolUpdate(10, false), true);

		const wide = new UiBudget("wide", c.now);
		let shown = 0;
		while (wide.admitToolUpdate(50_000, false)) shown++;
		assert.equal(shown, Math.floor(EXTENSION_UI_LIMITS.contentCharBurst / 50_000), "characters have their bound");
	});
});
