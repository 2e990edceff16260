/**
 * What an extension's overlay may put on screen, enforced wherever its rows become displayable (the
 * `overlay_render` answer and every `overlay_set_rows` request): rpi's contract — at most 100 rows, each
 * row's text redacted, then cut to 200 characters, and a style kept only from a fixed list. The host draws
 * the frame and owns keys and the editor; the extension supplies content only.
 */
import { isRecord } from "../protocol/json-object.js";
import { redactSecrets } from "./redact.js";
import { TEXT_STYLES, type TextStyle } from "./text-styles.js";

export const OVERLAY_MAX_ROWS = 100;
/** Counted in code points (rpi counts `char`s), after redaction, so a cut can never expose a secret's head. */
export const OVERLAY_MAX_ROW_CHARS = 200;
export const OVERLAY_STYLES = TEXT_STYLES;
export type OverlayStyle = TextStyle;

/** The key actions an overlay's `onKey` hears: meanings, never raw terminal keys (rpi's `OverlayKeyAction`). */
export const OVERLAY_KEY_ACTIONS = [
	"scroll_up",
	"scroll_down",
	"page_up",
	"page_down",
	"home",
	"end",
	"submit",
	"abort",
	"toggle_mode",
] as const;
export type OverlayKeyAction = (typeof OVERLAY_KEY_ACTIONS)[number];

/** One row as the wire carries it. */
export type OverlayRowInput = string | { text: string; style?: string };
/** One row as every surface receives it: always an object, its style one of the list or absent. */
export interface OverlayRow {
	text: string;
	style?: OverlayStyle;
}

/** What a surface (the terminal's, the chamber's) is asked to show: also the chamber's wire shape. */
export interface OverlayView {
	id: string;
	title: string;
	extensionId: string;
	rows: OverlayRow[];
	/** Present when the overlay declared `input`: the host's editor, seeded once with `value`. */
	input?: { placeholder?: string; multiline: boolean; value: string };
	/** Drawn without taking the keyboard (rpi's `nonCapturing`). */
	nonCapturing: boolean;
}

/** An `overlay_render` answer once checked: rows (sanitized) and the editor's opening draft, if any. */
export interface OverlayRender {
	rows: OverlayRow[];
	input?: { value: string };
}

const STYLES: ReadonlySet<string> = new Set(OVERLAY_STYLES);

function boundText(text: string): string {
	const redacted = redactSecrets(text);
	// Only walk code points when the UTF-16 length could be over the cap.
	return redacted.length <= OVERLAY_MAX_ROW_CHARS
		? redacted
		: Array.from(redacted).slice(0, OVERLAY_MAX_ROW_CHARS).join("");
}

export function sanitizeOverlayRows(rows: readonly OverlayRowInput[]): OverlayRow[] {
	return rows.slice(0, OVERLAY_MAX_ROWS).map((row) => {
		if (typeof row === "string") return { text: boundText(row) };
		const style = row.style !== undefined && STYLES.has(row.style) ? (row.style as OverlayStyle) : undefined;
		return style ? { text: boundText(row.text), style } : { text: boundText(row.text) };
	});
}

export class OverlayOutputError extends Error {
	override name = "OverlayOutputError";
}

/**
 * An `overlay_render` success value: a rows array (rpi's first contract) or `{rows?, input?: {value?}}`
 * (closed). A styled row may carry other fields (rpi's row is lenient); they are dropped. Anything else is
 * the extension's error, named with the overlay and what was wrong.
 */
export function parseOverlayRender(value: unknown, extensionId: string, overlayId: string): OverlayRender {
	const fail = (why: string) =>
		new OverlayOutputError(`extension ${extensionId} overlay "${overlayId}" returned invalid output: ${why}`);
	let rows: unknown = value;
	let input: { value: string } | undefined;
	if (!Array.isArray(value)) {
		if (!isRecord(value)) throw fail('expected a rows array or {"rows":[…],"input"?:{"value":"…"}}');
		const extra = Object.keys(value).find((k) => k !== "rows" && k !== "input");
		if (extra) throw fail(`unknown field "${extra}" (allowed: rows, input)`);
		rows = value.rows ?? [];
		if (value.input !== undefined) {
			const draft = value.input;
			if (!isRecord(draft) || Object.keys(draft).some((k) => k !== "value"))
				throw fail('input must be {"value": string}');
			if (draft.value !== undefined && typeof draft.value !== "string") throw fail("input.value must be a string");
			input = { value: draft.value ?? "" };
		}
	}
	if (!Array.isArray(rows)) throw fail("rows must be an array");
	const checked: OverlayRowInput[] = rows.map((row, index) => {
		if (typeof row === "string") return row;
		if (isRecord(row) && typeof row.text === "string" && (row.style === undefined || typeof row.style === "string"))
			return row.style === undefined ? { text: row.text } : { text: row.text, style: row.style };
		throw fail(`row ${index} must be a string or {"text": string, "style"?: string}`);
	});
	return { rows: sanitizeOverlayRows(checked), ...(input ? { input } : {}) };
}
