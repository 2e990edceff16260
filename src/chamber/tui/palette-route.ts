/**
 * `GET /api/pi/tui-palette.css`: pi's dark and light themes as CSS variables (`--pi-<token>`), which the page's
 * styled lines (drawn under the token theme) are coloured with. The light palette is the default and the dark one
 * applies under `prefers-color-scheme: dark`, as the rest of the page does.
 */
import { Hono } from "hono";
import { tuiPalettes } from "../../pi-seams/tui-render.js";

function variables(palette: Record<string, string>): string {
	return Object.entries(palette)
		.filter(([token, colour]) => /^[A-Za-z0-9]+$/.test(token) && /^#[0-9a-fA-F]{6}$/.test(colour))
		.map(([token, colour]) => `--pi-${token}:${colour};`)
		.join("");
}

let css: Promise<string> | undefined;

export function paletteCss(): Promise<string> {
	css ??= tuiPalettes().then(
		({ dark, light }) => `:root{${variables(light)}}\n@media (prefers-color-scheme: dark){:root{${variables(dark)}}}\n`,
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
