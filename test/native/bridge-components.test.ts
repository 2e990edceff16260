/**
 * UiComponent (22): every operation and every bound of the seed's "Registered TUI text components", each just
 * past its limit, and what pier is asked to render (widget requests), through runtimeAction and a fake host.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { UiRequest } from "../../src/extensions/protocol/frames.js";
import { RUNTIME_ACTION } from "../../src/extensions/runtimes/native/actions.js";
import {
	COMPONENT_ANCHORS,
	COMPONENT_SLOTS,
	displayWidth,
	type NativeComponent,
	renderLines,
} from "../../src/extensions/runtimes/native/components.js";
import { actionRunner, type FakeHost, fakeHost, uiOf } from "./bridge-fake-host.js";

function board(host: FakeHost = fakeHost()) {
	const runner = actionRunner(RUNTIME_ACTION.UiComponent, host);
	const { state } = runner;
	return {
		...runner,
		host,
		get: (id: string) => state.components.list().find((c) => c.id === id),
		/** Widget requests sent since the last call. */
		widgets: (() => {
			let seen = 0;
			return () => {
				const out = host.async.slice(seen).map((c) => uiOf(c.request) as Extract<UiRequest, { type: "widget" }>);
				seen = host.async.length;
				return out;
			};
		})(),
	};
}

const component = (over: Partial<NativeComponent>): NativeComponent => ({
	id: "c",
	type: "text",
	slot: "footer.after",
	order: 0,
	border: false,
	visible: true,
	text: "",
	...over,
});

describe("UiComponent operations", () => {
	test("the seed's sequence: register hidden, update, show, configure, hide, remove", () => {
		const b = board();
		assert.deepEqual(
			b.ok({
				op: "register",
				id: "monitor",
				type: "text",
				slot: "footer.after",
				order: 10,
				width: 240,
				maxHeight: 1,
				border: false,
				visible: false,
			}),
			{ ok: true, id: "monitor", registered: true },
		);
		assert.deepEqual(b.widgets(), [], "hidden: nothing shown");
		b.ok({ op: "update", id: "monitor", text: "TPS 252 · TTFT 0.42s" });
		assert.deepEqual(b.widgets(), []);
		b.ok({ op: "show", id: "monitor" });
		assert.deepEqual(b.widgets(), [
			{ type: "widget", key: "native:monitor", placement: "below_editor", lines: ["TPS 252 · TTFT 0.42s"] },
		]);
		b.ok({ op: "configure", id: "monitor", slot: "sidebar.right", width: 40, maxHeight: 8 });
		assert.deepEqual(b.widgets(), [
			{ type: "widget", key: "native:monitor", placement: "below_editor" },
			{ type: "widget", key: "native:monitor", placement: "above_editor", lines: ["TPS 252 · TTFT 0.42s"] },
		]);
		assert.equal(b.get("monitor")!.text, "TPS 252 · TTFT 0.42s", "configure keeps text");
		assert.equal(b.get("monitor")!.visible, true, "configure keeps visibility");
		b.ok({ op: "hide", id: "monitor" });
		assert.deepEqual(b.widgets(), [{ type: "widget", key: "native:monitor", placement: "above_editor" }]);
		assert.equal(b.get("monitor")!.text, "TPS 252 · TTFT 0.42s", "hidden components retain state");
		b.ok({ op: "remove", id: "monitor" });
		assert.equal(b.get("monitor"), undefined);
		assert.equal(b.error({ op: "show", id: "monitor" }), "unknown UI component `monitor`; register it first");
	});

	test("register defaults: text, footer.after, order 0, visible, no border", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		assert.deepEqual(b.get("c"), component({}));
	});

	test("register is idempotent: content, visibility and layout stay", () => {
		const b = board();
		b.ok({ op: "register", id: "c", width: 20 });
		b.ok({ op: "update", id: "c", text: "kept", title: "T" });
		b.ok({ op: "hide", id: "c" });
		const before = structuredClone(b.get("c"));
		assert.deepEqual(b.ok({ op: "register", id: "c", width: 60, visible: true, slot: "overlay" }), {
			ok: true,
			id: "c",
			registered: false,
		});
		assert.deepEqual(b.get("c"), before);
	});

	test("update takes text and an optional title; layout fields and unknown ids are refused", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		b.ok({ op: "update", id: "c", text: "one\ntwo", title: "Title" });
		assert.deepEqual(b.widgets().at(-1)!.lines, ["Title", "one", "two"]);
		b.ok({ op: "update", id: "c", text: "three" });
		assert.equal(b.get("c")!.title, "Title", "an update without a title keeps it");
		for (const key of ["width", "slot", "order", "maxHeight", "border", "anchor"]) {
			assert.match(
				b.error({ op: "update", id: "c", text: "x", [key]: 1 }),
				new RegExp(`update does not accept layout field \`${key}\`; use configure`),
			);
		}
		assert.equal(b.error({ op: "update", id: "ghost", text: "x" }), "unknown UI component `ghost`; register it first");
		assert.equal(b.error({ op: "update", id: "c" }), "UiComponent update requires a string `text`");
		assert.equal(b.get("c")!.text, "three");
	});

	test("configure changes layout only", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		assert.match(b.error({ op: "configure", id: "c", text: "x" }), /configure does not accept `text`/);
		assert.match(b.error({ op: "configure", id: "c", visible: false }), /configure does not accept `visible`/);
		b.ok({
			op: "configure",
			id: "c",
			anchor: "bottom-right",
			offsetX: -2,
			offsetY: 3,
			minScreenWidth: 100,
			border: true,
		});
		const c = b.get("c")!;
		assert.deepEqual([c.anchor, c.offsetX, c.offsetY, c.minScreenWidth, c.border], ["bottom-right", -2, 3, 100, true]);
	});

	test("unknown operations, missing ids and stray fields are refused", () => {
		const b = board();
		assert.match(b.error({ op: "blink", id: "c" }), /unknown UiComponent operation "blink"/);
		assert.match(b.error({ id: "c" }), /unknown UiComponent operation undefined/);
		assert.equal(b.error({ op: "register" }), "UiComponent requires a non-empty string `id`");
		assert.equal(b.error({ op: "register", id: "" }), "UiComponent requires a non-empty string `id`");
		assert.match(b.error({ op: "register", id: "c", colour: "red" }), /register does not accept `colour`/);
		assert.match(b.error({ op: "register", id: "x".repeat(129) }), /`id` exceeds 128 bytes/);
		b.ok({ op: "register", id: "x".repeat(128) });
	});

	test("an invalid change keeps the previous state", () => {
		const b = board();
		b.ok({ op: "register", id: "c", slot: "sidebar.left", width: 30 });
		b.ok({ op: "update", id: "c", text: "before", title: "t" });
		const before = structuredClone(b.get("c"));
		b.widgets();
		b.error({ op: "configure", id: "c", slot: "overlay", width: 500 });
		b.error({ op: "update", id: "c", text: "after", title: "x".repeat(257) });
		b.error({ op: "update", id: "c", text: "a\n".repeat(64), title: "new" });
		assert.deepEqual(b.get("c"), before);
		assert.deepEqual(b.widgets(), [], "nothing re-rendered");
	});
});

describe("UiComponent bounds, each just past its limit", () => {
	test("type is text", () => {
		const b = board();
		assert.match(b.error({ op: "register", id: "c", type: "image" }), /`type` must be "text", got "image"/);
	});

	test("the four slots and the nine anchors; anything else is refused", () => {
		const b = board();
		for (const [i, slot] of COMPONENT_SLOTS.entries()) b.ok({ op: "register", id: `s${i}`, slot });
		for (const anchor of COMPONENT_ANCHORS) b.ok({ op: "configure", id: "s0", anchor });
		assert.equal(COMPONENT_ANCHORS.length, 9);
		assert.ok(COMPONENT_ANCHORS.includes("left-center") && COMPONENT_ANCHORS.includes("right-center"));
		assert.match(
			b.error({ op: "register", id: "x", slot: "header" }),
			/`slot` must be one of footer.after, sidebar.left/,
		);
		assert.match(b.error({ op: "configure", id: "s0", anchor: "middle" }), /`anchor` must be one of top-left/);
	});

	test("width 4–240", () => {
		const b = board();
		b.ok({ op: "register", id: "c", width: 4 });
		b.ok({ op: "configure", id: "c", width: 240 });
		assert.equal(b.error({ op: "configure", id: "c", width: 3 }), "UiComponent `width` must be 4–240, got 3");
		assert.equal(b.error({ op: "configure", id: "c", width: 241 }), "UiComponent `width` must be 4–240, got 241");
		assert.equal(b.error({ op: "configure", id: "c", width: 10.5 }), "UiComponent `width` must be an integer");
		assert.equal(b.get("c")!.width, 240);
	});

	test("maxHeight 1–80", () => {
		const b = board();
		b.ok({ op: "register", id: "c", maxHeight: 1 });
		b.ok({ op: "configure", id: "c", maxHeight: 80 });
		assert.equal(b.error({ op: "configure", id: "c", maxHeight: 0 }), "UiComponent `maxHeight` must be 1–80, got 0");
		assert.equal(b.error({ op: "configure", id: "c", maxHeight: 81 }), "UiComponent `maxHeight` must be 1–80, got 81");
	});

	test("at most 64 lines", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		b.ok({ op: "update", id: "c", text: Array(64).fill("l").join("\n") });
		assert.equal(
			b.error({ op: "update", id: "c", text: Array(65).fill("l").join("\n") }),
			"UiComponent text has 65 lines; at most 64",
		);
	});

	test("at most 2,048 UTF-8 bytes a line", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		b.ok({ op: "update", id: "c", text: `ok\n${"é".repeat(1024)}` });
		assert.equal(
			b.error({ op: "update", id: "c", text: `ok\n${"é".repeat(1024)}x` }),
			"UiComponent text line 2 has 2049 bytes; at most 2048",
		);
	});

	test("at most 256 bytes of title", () => {
		const b = board();
		b.ok({ op: "register", id: "c" });
		b.ok({ op: "update", id: "c", text: "", title: `${"€".repeat(85)}a` }); // 255 + 1
		assert.equal(
			b.error({ op: "update", id: "c", text: "", title: `${"€".repeat(85)}ab` }),
			"UiComponent title has 257 bytes; at most 256",
		);
	});

	test("at most 32 components a plugin", () => {
		const b = board();
		for (let i = 0; i < 32; i++) b.ok({ op: "register", id: `c${i}` });
		assert.equal(b.error({ op: "register", id: "c32" }), "a plugin may register at most 32 UI components");
		b.ok({ op: "register", id: "c0" }); // idempotent re-register still fine
		b.ok({ op: "remove", id: "c0" });
		b.ok({ op: "register", id: "c32" });
	});
});

describe("UiComponent rendering", () => {
	test("headless runs store components and render nothing", () => {
		for (const mode of ["print", "json"] as const) {
			const b = board(fakeHost(mode));
			b.ok({ op: "register", id: "c" });
			b.ok({ op: "update", id: "c", text: "hi" });
			assert.equal(b.get("c")!.text, "hi");
			assert.equal(b.host.async.length + b.host.sync.length, 0);
		}
	});

	test("sorted by order then id; a new order re-renders in that order", () => {
		const b = board();
		b.ok({ op: "register", id: "b", order: 1 });
		b.ok({ op: "register", id: "a", order: 1 });
		b.ok({ op: "register", id: "z", order: -5 });
		assert.deepEqual(
			b.state.components.list().map((c) => c.id),
			["z", "a", "b"],
		);
		b.widgets();
		b.ok({ op: "configure", id: "z", order: 9 });
		const sent = b.widgets();
		const shown = sent.filter((w) => w.lines).map((w) => w.key);
		assert.deepEqual(shown, ["native:a", "native:b", "native:z"]);
		b.ok({ op: "update", id: "a", text: "only a changed" });
		assert.deepEqual(
			b.widgets().map((w) => w.key),
			["native:a"],
			"same order: only the changed widget is sent",
		);
	});

	test("the host's extension id names the widget", () => {
		const host = fakeHost();
		host.extensionId = "run-stats";
		const b = board(host);
		b.ok({ op: "register", id: "monitor" });
		assert.equal(b.widgets()[0]!.key, "native:run-stats:monitor");
	});

	test("lines are cut to width columns (wide characters count two) and to maxHeight rows", () => {
		assert.deepEqual(renderLines(component({ text: "abcdefgh\n世界世界", width: 5 })), ["abcde", "世界"]);
		assert.deepEqual(renderLines(component({ title: "T", text: "1\n2\n3", maxHeight: 2 })), ["T", "1"]);
		assert.equal(displayWidth("e\u0301🙂"), 3);
	});

	test("escape sequences and control characters are stripped, never sent", () => {
		assert.deepEqual(renderLines(component({ text: "\u001b[31mred\u001b[0m\u0007 \u001b]0;title\u0007ok\tx" })), [
			"red okx",
		]);
	});

	test("a border frames the text inside the width", () => {
		assert.deepEqual(renderLines(component({ text: "hi", width: 8, border: true })), [
			"┌──────┐",
			"│ hi   │",
			"└──────┘",
		]);
	});
});
