/**
 * `message_renderer` registrations (bridge/message-renderers.ts): the answer's checks and limits, and in a real
 * session the renderer pi's terminal calls for the type, drawing the extension's lines (styled by pi's theme).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
	MAX_RENDERED_LINE_CHARS,
	MAX_RENDERED_LINES,
	RenderedMessageComponent,
	renderedText,
	toRenderedLines,
} from "../../src/extensions/bridge/message-renderers.js";
import { visibleWidth } from "@earendil-works/pi-tui";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

/** What pi's terminal passes besides `expanded`: no padding, and key hints as plain text. */
const RENDER_OPTIONS = {
	outputPad: 0,
	keyText: (key: string) => key,
	keyHint: (key: string, text: string) => `${key} ${text}`,
};

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

/** A theme that shows which style a span got. */
const theme = {
	fg: (color: string, text: string) => `<${color}>${text}</${color}>`,
	bold: (text: string) => `<b>${text}</b>`,
	italic: (text: string) => `<i>${text}</i>`,
};

describe("a renderer's answer", () => {
	test("spans keep known styles; unknown styles are dropped, the text kept", () => {
		assert.deepEqual(
			toRenderedLines({
				lines: [
					[
						{ text: "a", style: "bold" },
						{ text: "b", style: "sparkly" },
						{ text: "c", style: "default" },
					],
					[],
				],
			}),
			[[{ text: "a", style: "bold" }, { text: "b" }, { text: "c" }], []],
		);
		assert.deepEqual(toRenderedLines({}), [], "lines default to none");
	});

	test("another shape is refused, naming the field", () => {
		assert.throws(() => toRenderedLines(null), /must be an object \{"lines"/);
		assert.throws(() => toRenderedLines({ lines: [], extra: 1 }), /unknown field "extra"/);
		assert.throws(() => toRenderedLines({ lines: "x" }), /lines must be an array/);
		assert.throws(() => toRenderedLines({ lines: ["x"] }), /lines\[0\] must be an array of spans/);
		assert.throws(() => toRenderedLines({ lines: [[{ text: 1 }]] }), /lines\[0\]\[0\]\.text must be a string/);
		assert.throws(
			() => toRenderedLines({ lines: [[{ text: "", color: "red" }]] }),
			/lines\[0\]\[0\] has an unknown field "color"/,
		);
	});

	test(`at most ${MAX_RENDERED_LINES} lines and ${MAX_RENDERED_LINE_CHARS} characters a line: past them, cut and said`, () => {
		const line = [{ text: "x" }];
		assert.equal(toRenderedLines({ lines: Array(MAX_RENDERED_LINES).fill(line) }).length, MAX_RENDERED_LINES);
		const over = toRenderedLines({ lines: Array(MAX_RENDERED_LINES + 1).fill(line) });
		assert.equal(over.length, MAX_RENDERED_LINES + 1);
		assert.deepEqual(over.at(-1), [{ text: "… 1 more lines not shown", style: "dim" }]);
		const full = "y".repeat(MAX_RENDERED_LINE_CHARS);
		assert.equal(renderedText(toRenderedLines({ lines: [[{ text: full }]] })), full);
		const cut = toRenderedLines({ lines: [[{ text: full }, { text: "z" }, { text: "w", style: "bold" }]] });
		assert.equal(renderedText(cut), full, "spans past the limit go");
	});
});

describe("in pi's terminal", () => {
	test("the component shows the message's text until the lines arrive, then the lines, cut to the width", async () => {
		let answer!: (lines: ReturnType<typeof toRenderedLines>) => void;
		let repaints = 0;
		const component = new RenderedMessageComponent(new Promise((r) => (answer = r)), "plain body", theme, () => {
			repaints++;
		});
		assert.deepEqual(component.render(80), ["plain body"]);
		assert.equal(repaints, 0);
		answer([[{ text: "hello", style: "accent" }], [{ text: "0123456789" }]]);
		await sleep(0);
		assert.deepEqual(component.render(80), ["<accent>hello</accent>", "0123456789"]);
		assert.equal(repaints, 1, "the terminal is asked to draw the lines");
		assert.ok(
			component.render(4).every((l) => visibleWidth(l) <= 4),
			"pi's terminal refuses wider lines",
		);
		const failed = new RenderedMessageComponent(Promise.reject(new Error("renderer broke")), "x", theme);
		await sleep(0);
		assert.deepEqual(failed.render(80), ["<error>renderer broke</error>"]);
	});

	test("a real session's renderer for the type draws the extension's lines", async () => {
		using dir = tempDir();
		const pier = await createPierSession({
			cwd: dir.path,
			agentDir: dir.path,
			session: { kind: "memory" },
			extensionPaths: [RAW],
			model: "raw-llm/default",
			onExtensionError: () => {},
		});
		try {
			const renderer = pier.session.extensionRunner.getMessageRenderer("raw.card");
			assert.ok(renderer, "pi has a renderer for the extension's type");
			assert.equal(pier.session.extensionRunner.getMessageRenderer("other.type"), undefined);
			const message = {
				role: "custom" as const,
				customType: "raw.card",
				content: "card body",
				display: true,
				details: { n: 3 },
				timestamp: Date.now(),
			};
			const component = renderer(
				message,
				{ ...RENDER_OPTIONS, expanded: true },
				theme as never,
			) as RenderedMessageComponent;
			assert.deepEqual(component.render(80), ["card body"]);
			for (let i = 0; i < 200 && !component.ready; i++) await sleep(10);
			assert.deepEqual(component.render(80), ["<b>RAW CARD</b> #3", "content: card body", "<dim>expanded=true</dim>"]);
			// A rebuild of the row asks again: the answer is the one already given, drawn at once.
			const again = renderer(
				message,
				{ ...RENDER_OPTIONS, expanded: true },
				theme as never,
			) as RenderedMessageComponent;
			await sleep(0);
			assert.equal(again.ready, true);
			const collapsed = renderer(
				message,
				{ ...RENDER_OPTIONS, expanded: false },
				theme as never,
			) as RenderedMessageComponent;
			for (let i = 0; i < 200 && !collapsed.ready; i++) await sleep(10);
			assert.equal(collapsed.render(80)[2], "<dim>expanded=false</dim>");
		} finally {
			await pier.dispose();
		}
	});
});
