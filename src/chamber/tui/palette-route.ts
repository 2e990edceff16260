/**
 * `GET /api/pi/tui-palette.css`: pi's dark and light themes as CSS variables (`--pi-<token>`), which the page's
 * styled lines (drawn under the token theme) are coloured with, each foreground raised to AA contrast where pi's
 * falls short (legible-palette.ts). The light palette is the default and the dark one
 * applies under `prefers-color-scheme: dark`, as the rest of the page does.
 */
import { Hono } from "hono";
import { tuiPalettes } from "../../pi-seams/tui-render.js";
import { legiblePalette } from "./legible-palette.js";

/** The page's own backgrounds (styles.css `--bg`, `--bg-soft`, `--bg-raised`), light and dark. */
const PAGE_BACKGROUNDS = { light: ["#ffffff", "#f6f7f9"], dark: ["#15171b", "#1c1f24", "#22262c"] };

function variables(palette: Record<string, string>): string {
	return Object.entries(palette)
		.filter(([token, colour]) => /^[A-Za-z0-9]+$/.test(token) && /^#[0-9a-fA-F]{6}$/.test(colour))
		.map(([token, colour]) => `--pi-${token}:${colour};`)
		.join("");
}

let css: Promise<string> | undefined;

export function paletteCss(): Promise<string> {
	css ??= tuiPalettes().then(
		({ dark, light }) =>
			`:root{${variables(legiblePalette(light, false, PAGE_BACKGROUNDS.light))}}\n` +
			`@media (prefers-color-scheme: dark){:root{${variables(legiblePalette(dark, true, PAGE_BACKGROUNDS.dark))}}}\n`,
	);
	return css;
}

export function paletteRoutes(): Hono {
	const app = new Hono();
	app.get("/tui-palette.css", async (c) =>
		c.body(await paletteCss(), 200, { "content-type": "text/css; charset=utf-8", "cache-control": "max-age=3600" }),
	);
	return app;
}
