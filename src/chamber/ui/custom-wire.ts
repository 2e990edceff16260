/**
 * The wire shapes of `ctx.ui.custom()` in the chamber (re-exported by wire.ts): a pi component drawn on the daemon,
 * shown by the page in an overlay that takes the keyboard, with the keys sent back as terminal input.
 */
import { type Static, Type } from "typebox";
import type { StyledLine } from "../tui/styled-text.js";
import type { EventPayloads } from "../wire.js";

/** Bounds on one session's custom components; each has a test just past it (test/chamber/custom-ui.test.ts). */
export const CUSTOM_LIMITS = {
	/** Lines sent per frame; the rest is cut, with a last line saying how many were left out. */
	linesPerFrame: 200,
	/** Redraws a component may cause per second: requestRender calls between frames are coalesced into one. */
	framesPerSecond: 20,
	/** Bytes of terminal input one request carries (a paste longer than this is refused, not cut). */
	inputBytes: 4096,
	/** Components open at once in one session (pi stacks them; the page shows the newest). */
	open: 4,
	/** Widest and narrowest terminal the page may report. */
	minColumns: 20,
	maxColumns: 400,
	maxRows: 200,
} as const;

/** An open custom component as the page shows it. */
export interface CustomView {
	customId: string;
	/** The extension that opened it (its file's last two path parts), when the daemon could tell. */
	extension?: string;
	/** pi's `overlay: true`: a floating panel in pi's terminal; the chamber shows both kinds in its overlay. */
	overlay: boolean;
	/** The width the lines were drawn at (a snapped bucket of what the page reported). */
	columns: number;
	lines: StyledLine[];
	/** When a `timeout` the extension gave ends it. */
	expiresAt?: number;
}

/** Why a custom component closed: `done` is the extension's own `done(value)`. */
export const CUSTOM_CLOSE_REASONS = ["done", "cancelled", "timeout", "error", "session-closed"] as const;
export type CustomCloseReason = (typeof CUSTOM_CLOSE_REASONS)[number];

/** The custom components' events, as the stream declares them (wire-events.ts). */
export type CustomEventPayloads = Pick<
	EventPayloads,
	"extension.custom.open" | "extension.custom.frame" | "extension.custom.close"
>;

/** Keys typed in the page (terminal input: `\x1b[A`, `\r`, text) and/or the size of the page's terminal. */
export const CustomInputBody = Type.Object(
	{
		data: Type.Optional(Type.String({ minLength: 1, maxLength: CUSTOM_LIMITS.inputBytes })),
		columns: Type.Optional(Type.Integer({ minimum: CUSTOM_LIMITS.minColumns, maximum: CUSTOM_LIMITS.maxColumns })),
		rows: Type.Optional(Type.Integer({ minimum: 1, maximum: CUSTOM_LIMITS.maxRows })),
	},
	{ additionalProperties: false },
);
export type CustomInput = Static<typeof CustomInputBody>;
