/**
 * Text from an extension or a session file, made safe to look at: control characters (C0, DEL, C1) and the
 * invisible bidi controls (embeddings, overrides, isolates, LRM/RLM/ALM, line and paragraph separators) become
 * visible escapes such as `\u202E`, so a name cannot reorder what the user reads or hide what follows it.
 * Every place that shows such text goes through one of these two functions.
 */

// U+061C ALM, U+200E/F LRM/RLM, U+2028/9 separators, U+202A–E embeddings and overrides, U+2066–9 isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
const HIDDEN_BUT_LAYOUT =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
	/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

const asEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/** A one-line label (a session name, a title, a command name): every hidden character escaped, newlines too. */
export function visible(text: string | undefined | null): string {
	return text == null ? "" : String(text).replace(HIDDEN, asEscape);
}

/** Running text (a message, a widget, tool output): newlines and tabs keep their meaning, the rest is escaped. */
export function visibleText(text: string | undefined | null): string {
	return text == null ? "" : String(text).replace(HIDDEN_BUT_LAYOUT, asEscape);
}

// U+00A0, U+2000–U+200A, U+202F, U+205F, U+3000: spaces that look like U+0020 (pi's path expansion even turns them
// into it), and U+200B–U+200D, U+FEFF, which look like nothing.
const LOOKALIKE_SPACE = /[\u00A0\u2000-\u200D\u202F\u205F\u3000\uFEFF]/g;

/** A file name: as `visible`, and a space that is not U+0020 is escaped too, so a name never passes for its twin. */
export function visiblePath(path: string): string {
	return visible(path).replace(LOOKALIKE_SPACE, asEscape);
}
