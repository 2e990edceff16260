/**
 * A pi-tui component drawn on the daemon, at a width the browser reported, as styled lines.
 *
 * Widths snap to a few column buckets so a row drawn for one window serves every window of about the same size,
 * and a resize by a few pixels draws nothing again.
 */
import type { Component } from "@earendil-works/pi-tui";
import { installTokenTheme } from "../../pi-seams/tui-render.js";
import { type StyledLine, styledLines } from "./styled-text.js";

export { snapWidth, WIDTH_BUCKETS } from "./drawing-wire.js";

/** Past this a drawing is cut, with a last line saying how much was left out. */
export const MAX_DRAWN_LINES = 500;

/** The component's lines at `width` columns, styled; the theme is the token theme (installed on first use). */
export async function drawComponent(component: Component, width: number): Promise<StyledLine[]> {
	const { tokens } = await installTokenTheme();
	const lines = component.render(width);
	const kept = lines.length > MAX_DRAWN_LINES ? lines.slice(0, MAX_DRAWN_LINES - 1) : lines;
	const styled = styledLines(kept, tokens);
	if (kept.length < lines.length)
		styled.push([{ text: `… ${lines.length - kept.length} more lines not shown`, fg: "muted" }]);
	return styled;
}
