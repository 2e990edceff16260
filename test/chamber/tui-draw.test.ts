/**
 * pi components drawn on the daemon: real pi-tui components under the token theme, read back as styled spans.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Box, Text } from "@earendil-works/pi-tui";
import { drawComponent, MAX_DRAWN_LINES, snapWidth } from "../../src/chamber/tui/draw.js";
import { contrast, MIN_CONTRAST } from "../../src/chamber/tui/legible-palette.js";
import { paletteCss } from "../../src/chamber/tui/palette-route.js";
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

test("the served palette raises each foreground short of AA contrast, and keeps pi's colour where it is enough", async () => {
	const css = await paletteCss();
	const [light, dark] = css.split("@media") as [string, string];
	const read = (block: string) =>
		Object.fromEntries([...block.matchAll(/--pi-([A-Za-z0-9]+):(#[0-9a-f]{6});/gi)].map((m) => [m[1]!, m[2]!]));
	const served = { light: read(light), dark: read(dark) };
	const pi = await tuiPalettes();
	let raised = 0;
	for (const mode of ["light", "dark"] as const) {
		const palette = served[mode];
		const backgrounds = Object.entries(palette).filter(([token]) => token.endsWith("Bg"));
		assert.ok(backgrounds.length > 3, `${mode}: pi's backgrounds are served`);
		for (const [token, colour] of Object.entries(palette)) {
			if (token.endsWith("Bg")) {
				assert.equal(colour, pi[mode][token], `${mode} ${token} is pi's`);
				continue;
			}
			for (const [bg, behind] of backgrounds)
				assert.ok(
					contrast(colour, behind) >= MIN_CONTRAST,
					`${mode} ${token} ${colour} on ${bg} ${behind}: ${contrast(colour, behind).toFixed(2)}`,
				);
			const enough = backgrounds.every(([, behind]) => contrast(pi[mode][token]!, behind) >= MIN_CONTRAST);
			if (enough && mode === "dark" && contrast(pi[mode][token]!, "#22262c") >= MIN_CONTRAST)
				assert.equal(colour, pi[mode][token], `${mode} ${token} kept`);
			if (colour !== pi[mode][token]) raised++;
		}
	}
	// pi's light dim is 2.6:1 on its tool background: raised, not kept.
	assert.notEqual(served.light.dim, pi.light.dim);
	assert.ok(raised > 0);
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
