/**
 * `ctx.ui.custom()` on the daemon, without a browser: the key mapping read back by pi-tui itself, the `tui` facade,
 * the redraw pacing (on a clock the test turns), and the limits on lines, input bytes and open components, each
 * tried just past its bound. The browser side plays pi's examples: test/chamber-web/custom-ui.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type Component, Key, matchesKey, Text } from "@earendil-works/pi-tui";
import { plainText } from "../../src/chamber/tui/styled-text.js";
import { type KeyLike, SCREEN_KEYS, terminalInput } from "../../src/chamber/tui/terminal-keys.js";
import { CustomComponents, type CustomHooks } from "../../src/chamber/ui/custom-components.js";
import { overlayHandleFacade, RenderPacer, type Timers, tuiFacade } from "../../src/chamber/ui/custom-tui.js";
import { CUSTOM_LIMITS, type CustomEventPayloads } from "../../src/chamber/ui/custom-wire.js";
import { SessionUi } from "../../src/chamber/ui/session-ui.js";

test("browser keys become terminal input that pi-tui's matchesKey reads as the same key", () => {
	const cases: [KeyLike, string][] = [
		[{ key: "ArrowUp" }, Key.up],
		[{ key: "ArrowDown" }, Key.down],
		[{ key: "ArrowLeft" }, Key.left],
		[{ key: "ArrowRight" }, Key.right],
		[{ key: "Enter" }, Key.enter],
		[{ key: "Escape" }, Key.escape],
		[{ key: "Backspace" }, Key.backspace],
		[{ key: "Tab" }, Key.tab],
		[{ key: "Tab", shiftKey: true }, Key.shift("tab")],
		[{ key: "Home" }, Key.home],
		[{ key: "End" }, Key.end],
		[{ key: "PageUp" }, Key.pageUp],
		[{ key: "PageDown" }, Key.pageDown],
		[{ key: "Delete" }, Key.delete],
		[{ key: "c", ctrlKey: true }, Key.ctrl("c")],
		[{ key: "A", ctrlKey: true, shiftKey: true }, Key.ctrl("a")],
		[{ key: "ArrowLeft", ctrlKey: true }, Key.ctrl("left")],
		[{ key: "ArrowUp", shiftKey: true }, Key.shift("up")],
		[{ key: "b", altKey: true }, Key.alt("b")],
		[{ key: "Enter", shiftKey: true }, Key.shift("enter")],
	];
	for (const [browser, key] of cases) {
		const data = terminalInput(browser);
		assert.ok(data !== undefined, `${JSON.stringify(browser)} maps to input`);
		assert.ok(matchesKey(data, key as never), `${JSON.stringify(browser)} → ${JSON.stringify(data)} is ${key}`);
	}
	assert.equal(terminalInput({ key: "q" }), "q");
	assert.equal(terminalInput({ key: "Q", shiftKey: true }), "Q");
	assert.equal(terminalInput({ key: " " }), " ");
	assert.equal(terminalInput({ key: "é" }), "é");
	assert.equal(terminalInput({ key: "Enter" }), "\r");
	assert.equal(terminalInput({ key: "ArrowUp" }), "\x1b[A");
	assert.equal(terminalInput({ key: "Backspace" }), "\x7f");
	assert.equal(terminalInput({ key: "Tab", shiftKey: true }), "\x1b[Z");
	// What a terminal would not send: a lone modifier, Cmd combinations (the browser's copy and paste).
	assert.equal(terminalInput({ key: "Shift", shiftKey: true }), undefined);
	assert.equal(terminalInput({ key: "c", metaKey: true }), undefined);
	assert.equal(terminalInput({ key: "Unidentified" }), undefined);
	for (const k of SCREEN_KEYS) assert.ok(terminalInput(k.key), `screen key ${k.name}`);
});

test("the tui facade: requestRender and the terminal's size; any other member throws a sentence naming it", () => {
	let renders = 0;
	const tui = tuiFacade(
		() => ({ columns: 100, rows: 30 }),
		() => renders++,
	) as Record<string, unknown> & { requestRender(): void; terminal: Record<string, unknown> };
	tui.requestRender();
	assert.equal(renders, 1);
	assert.equal(tui.terminal.columns, 100);
	assert.equal(tui.terminal.rows, 30);
	assert.throws(() => tui.showOverlay, /ctx\.ui\.custom: tui\.showOverlay is not available in the chamber/);
	assert.throws(() => tui.terminal.write, /tui\.terminal\.write is not available in the chamber/);
	// Probes by promise adapters and inspectors stay harmless.
	assert.equal(tui.then, undefined);
	const handle = overlayHandleFacade() as Record<string, () => unknown>;
	assert.equal(handle.isHidden?.(), false);
	assert.throws(() => handle.setHidden?.(), /overlay handle's setHidden\(\) is not available in the chamber/);
});

/** A clock and timers the test turns by hand. */
function manualTimers() {
	let now = 0;
	const pending: { at: number; fn: () => void; id: number }[] = [];
	let ids = 0;
	const timers: Timers = {
		now: () => now,
		setTimeout: (fn, ms) => {
			const id = ++ids;
			pending.push({ at: now + ms, fn, id });
			return id;
		},
		clearTimeout: (id) => {
			const i = pending.findIndex((p) => p.id === id);
			if (i >= 0) pending.splice(i, 1);
		},
	};
	return {
		timers,
		pending,
		/** Moves the clock on and runs what fell due. */
		advance(ms: number) {
			now += ms;
			for (const due of pending.filter((p) => p.at <= now)) {
				pending.splice(pending.indexOf(due), 1);
				due.fn();
			}
		},
	};
}

test("redraws: requests between frames make one frame, and frames come at most framesPerSecond", () => {
	const clock = manualTimers();
	let frames = 0;
	const pacer = new RenderPacer(() => frames++, clock.timers);
	for (let i = 0; i < 50; i++) pacer.request();
	assert.equal(clock.pending.length, 1, "fifty requests, one frame scheduled");
	clock.advance(0);
	assert.equal(frames, 1);
	pacer.request();
	assert.equal(clock.pending[0]?.at, 1000 / CUSTOM_LIMITS.framesPerSecond, "the next frame waits its interval");
	clock.advance(1000 / CUSTOM_LIMITS.framesPerSecond - 1);
	assert.equal(frames, 1, "not a millisecond early");
	clock.advance(1);
	assert.equal(frames, 2);
	// A component asking for a frame every millisecond for a second gets framesPerSecond of them.
	for (let ms = 0; ms < 1000; ms++) {
		pacer.request();
		clock.advance(1);
	}
	assert.ok(frames - 2 <= CUSTOM_LIMITS.framesPerSecond, `${frames - 2} frames in one second`);
	pacer.stop();
	pacer.request();
	assert.equal(clock.pending.length, 0, "a stopped pacer draws nothing");
});

interface Heard {
	events: { event: keyof CustomEventPayloads; payload: unknown }[];
	errors: { message: string; source?: string }[];
}

function rig(caller = "ext/game.ts") {
	const clock = manualTimers();
	const heard: Heard = { events: [], errors: [] };
	const hooks: CustomHooks = {
		publish: (event, payload) => heard.events.push({ event, payload }),
		caller: () => caller,
		reportError: (message, source) => heard.errors.push({ message, ...(source ? { source } : {}) }),
		changed: () => {},
	};
	const customs = new CustomComponents(hooks, clock.timers);
	/** Waits until the component is open (its first drawing is async). */
	const opened = async () => {
		for (let i = 0; i < 100 && customs.count === 0; i++) await new Promise((r) => setImmediate(r));
		const id = customs.views().at(-1)?.customId;
		assert.ok(id, "the component opened");
		return id;
	};
	/** Runs due frames and lets their drawing finish. */
	const frame = async () => {
		clock.advance(1000);
		for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
	};
	return { customs, heard, clock, opened, frame };
}

class Counter implements Component {
	count = 0;
	keys: string[] = [];
	disposed = false;
	constructor(
		private readonly tui: { requestRender(): void },
		private readonly done: (value: number) => void,
	) {}
	render(width: number): string[] {
		return [`count ${this.count} at ${width}`];
	}
	handleInput(data: string): void {
		this.keys.push(data);
		if (matchesKey(data, Key.enter)) this.done(this.count);
		else if (matchesKey(data, Key.up)) this.count++;
	}
	invalidate(): void {}
	dispose(): void {
		this.disposed = true;
	}
	tick(): void {
		this.tui.requestRender();
	}
}

test("a component opens with its lines, takes keys, redraws at the page's width, and done() resolves the call", async () => {
	const { customs, heard, opened, frame } = rig();
	let counter: Counter | undefined;
	const call = customs.show<number>((tui, _theme, _kb, done) => {
		counter = new Counter(tui, done);
		return counter;
	});
	const id = await opened();
	const open = heard.events.find((e) => e.event === "extension.custom.open")
		?.payload as CustomEventPayloads["extension.custom.open"];
	assert.equal(plainText(open.custom.lines).trim(), "count 0 at 80");
	assert.equal(open.custom.extension, "ext/game.ts");
	assert.deepEqual(customs.input(id, { data: "\x1b[A" }), { ok: true });
	assert.deepEqual(customs.input(id, { columns: 130, rows: 40 }), { ok: true });
	await frame();
	const last = heard.events.filter((e) => e.event === "extension.custom.frame").at(-1)
		?.payload as CustomEventPayloads["extension.custom.frame"];
	assert.equal(plainText(last.lines).trim(), "count 1 at 120", "drawn again at the snapped width");
	assert.equal(last.columns, 120);
	customs.input(id, { data: "\r" });
	assert.equal(await call, 1);
	assert.ok(counter?.disposed, "disposed, as pi does");
	assert.equal(customs.count, 0);
	assert.deepEqual(heard.events.at(-1), { event: "extension.custom.close", payload: { customId: id, reason: "done" } });
	assert.equal(customs.input(id, { data: "x" }).ok, false, "a closed component takes no more keys");
});

test("Cancel resolves with undefined; a timeout given by the extension too", async () => {
	const first = rig();
	const call = first.customs.show((tui, _t, _k, done) => new Counter(tui, done));
	const id = await first.opened();
	assert.deepEqual(first.customs.cancel(id), { ok: true });
	assert.equal(await call, undefined);
	assert.equal(first.customs.cancel(id).ok, false);

	const second = rig();
	const timed = second.customs.show((tui, _t, _k, done) => new Counter(tui, done), { timeout: 5_000 } as never);
	const timedId = await second.opened();
	second.clock.advance(5_000);
	assert.equal(await timed, undefined);
	assert.deepEqual(second.heard.events.at(-1)?.payload, {
		customId: second.customs.views()[0]?.customId ?? timedId,
		reason: "timeout",
	});
});

test("a component whose render or handleInput throws is closed with an error row naming its extension", async () => {
	const { customs, heard, opened, frame } = rig("ext/broken.ts");
	let explode = false;
	const call = customs.show(() => ({
		render: () => {
			if (explode) throw new Error("render blew up");
			return ["fine"];
		},
		invalidate() {},
		handleInput() {
			explode = true;
		},
	}));
	const id = await opened();
	customs.input(id, { data: "x" });
	await frame();
	assert.equal(await call, undefined);
	assert.match(heard.errors[0]?.message ?? "", /ext\/broken\.ts failed and was closed: render blew up/);
	assert.equal(heard.errors[0]?.source, "ext/broken.ts");

	const keys = rig("ext/keys.ts");
	const second = keys.customs.show(() => ({
		render: () => ["x"],
		invalidate() {},
		handleInput() {
			throw new Error("no keys please");
		},
	}));
	keys.customs.input(await keys.opened(), { data: "a" });
	assert.equal(await second, undefined);
	assert.match(keys.heard.errors[0]?.message ?? "", /ext\/keys\.ts failed and was closed: no keys please/);

	// A factory that throws rejects the call with its own error, as pi does.
	await assert.rejects(
		keys.customs.show(() => {
			throw new Error("factory failed");
		}),
		/factory failed/,
	);
	// A factory that reaches for what the chamber lacks learns which member.
	await assert.rejects(
		keys.customs.show((tui) => {
			(tui as unknown as { setClearOnShrink(v: boolean): void }).setClearOnShrink(true);
			return new Text("x");
		}),
		/tui\.setClearOnShrink is not available in the chamber/,
	);
});

test("limits: lines per frame, input bytes and open components, each just past its bound", async () => {
	const { customs, opened } = rig();
	const tall = (n: number) => ({ render: () => Array.from({ length: n }, (_, i) => `line ${i}`), invalidate() {} });
	void customs.show(() => tall(CUSTOM_LIMITS.linesPerFrame));
	const first = await opened();
	assert.equal(customs.views()[0]?.lines.length, CUSTOM_LIMITS.linesPerFrame, "exactly the limit: all lines");
	customs.cancel(first);
	void customs.show(() => tall(CUSTOM_LIMITS.linesPerFrame + 1));
	const past = await opened();
	const view = customs.views().find((v) => v.customId === past)!;
	assert.equal(view.lines.length, CUSTOM_LIMITS.linesPerFrame);
	assert.equal(plainText([view.lines.at(-1)!]), "… 2 more lines not shown");

	assert.deepEqual(customs.input(past, { data: "x".repeat(CUSTOM_LIMITS.inputBytes) }), { ok: true });
	const tooMany = customs.input(past, { data: `${"x".repeat(CUSTOM_LIMITS.inputBytes - 1)}é` });
	assert.equal(tooMany.ok, false);
	assert.equal(!tooMany.ok && tooMany.status, 422);
	assert.match(!tooMany.ok ? tooMany.message : "", /at most 4096 bytes/);

	for (let i = customs.count; i < CUSTOM_LIMITS.open; i++) {
		void customs.show(() => tall(1));
		for (let j = 0; j < 50 && customs.count <= i; j++) await new Promise((r) => setImmediate(r));
	}
	assert.equal(customs.count, CUSTOM_LIMITS.open);
	await assert.rejects(
		customs.show(() => tall(1)),
		/ctx\.ui\.custom refused: 4 components are already open/,
	);
	customs.dismissAll();
	assert.equal(customs.count, 0);
});

test("ctx.ui members the chamber cannot honour say so once, as a warning, and do not throw", () => {
	const notices: string[] = [];
	const ui = new SessionUi(
		(event, payload) => {
			if (event === "extension.notify") notices.push((payload as { message: string }).message);
		},
		() => {},
		{ caller: () => "ext/fancy.ts", reportError: () => {} },
	);
	const ctx = ui.context();
	const factory = () => new Text("x");
	ctx.setFooter(factory as never);
	ctx.setFooter(factory as never);
	ctx.setFooter(undefined);
	ctx.setHeader(factory as never);
	ctx.setEditorComponent(factory as never);
	ctx.setEditorComponent(undefined);
	ctx.setWidget("w", factory as never);
	const off = ctx.onTerminalInput(() => undefined);
	off();
	assert.equal(ctx.getTheme("dark"), undefined);
	assert.deepEqual(
		notices.map((n) => n.split(":")[0]),
		[
			"ctx.ui.setFooter (ext/fancy.ts)",
			"ctx.ui.setHeader (ext/fancy.ts)",
			"ctx.ui.setEditorComponent (ext/fancy.ts)",
			"ctx.ui.setWidget (ext/fancy.ts)",
			"ctx.ui.onTerminalInput (ext/fancy.ts)",
			"ctx.ui.getTheme (ext/fancy.ts)",
		],
	);
	assert.ok(
		notices.every((n) => /not available in the chamber/.test(n)),
		notices.join("\n"),
	);
	// Line widgets still work, as before.
	ctx.setWidget("lines", ["one"]);
	assert.deepEqual(ui.view().widgets.lines?.lines, ["one"]);
});
