/**
 * pi components drawn on the daemon: real pi-tui components under the token theme, read back as styled spans.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Box, Text } from "@earendil-works/pi-tui";
import { drawComponent, MAX_DRAWN_LINES, snapWidth } from "../../src/chamber/tui/draw.js";
import { plainText, styledLine } from "../../src/chamber/tui/styled-text.js";
import { installTokenTheme, tuiPalettes } from "../../src/pi-seams/tui-render.js";

test("a themed component comes back as spans that name pi's theme tokens", async () => {
	const { theme } = await installTokenTheme();
	const box = new Box(1, 0, (t) => theme.bg("customMessageBg", t));
	box.addChild(new Text(`${theme.fg("error", "[ERROR]")} ${theme.bold("disk full")}`, 0, 0));
	const lines = await drawComponent(box, 40);
	assert.equal(lines.length, 1);
	assert.equal(plainText(lines).trimEnd(), " [ERROR] disk full");
	const error = lines[0]?.find((span) => span.text === "[ERROR]");
	assert.equal(error?.fg, "error", JSON.stringify(lines[0]));
	assert.ok(
		lines[0]?.every((span) => span.bg === "customMessageBg"),
		JSON.stringify(lines[0]),
	);
	// The padding fills the whole width, as a terminal shows it.
	assert.equal(plainText(lines).length, 40);
});

test("every token the theme has a palette colour for, in pi's dark and light themes", async () => {
	const { tokens: names } = await installTokenTheme();
	const palettes = await tuiPalettes();
	for (const name of [...names.foreground, ...names.background]) {
		assert.match(palettes.dark[name] ?? "", /^#[0-9a-f]{6}$/i, `dark ${name}`);
		assert.match(palettes.light[name] ?? "", /^#[0-9a-f]{6}$/i, `light ${name}`);
	}
	assert.notEqual(palettes.dark.accent, palettes.light.accent);
});

test("terminal colours, 256 colours, attributes and hyperlinks; cursor moves and markers are dropped", async () => {
	const { tokens } = await installTokenTheme();
	const line = styledLine(
		"\x1b[31mred\x1b[0m \x1b[1;4mbu\x1b[22;24m \x1b[38;5;196mx\x1b[39m \x1b]8;;https://pi.dev\x07link\x1b]8;;\x07\x1b[2K\x1b_pi:c\x07!",
		tokens,
	);
	assert.deepEqual(line, [
		{ text: "red", fg: "ansi1" },
		{ text: " " },
		{ text: "bu", bold: true, underline: true },
		{ text: " " },
		{ text: "x", fg: "#ff0000" },
		{ text: " " },
		{ text: "link", link: "https://pi.dev" },
		{ text: "!" },
	]);
});

test("a drawing longer than the limit is cut with a line saying so", async () => {
	const text = new Text(Array.from({ length: MAX_DRAWN_LINES + 5 }, (_, i) => `line ${i}`).join("\n"), 0, 0);
	const lines = await drawComponent(text, 40);
	assert.equal(lines.length, MAX_DRAWN_LINES);
	assert.match(plainText(lines.slice(-1)), /6 more lines not shown/);
});

test("widths snap down to a bucket, never below the narrowest", () => {
	assert.equal(snapWidth(10), 40);
	assert.equal(snapWidth(79), 60);
	assert.equal(snapWidth(80), 80);
	assert.equal(snapWidth(500), 160);
});
