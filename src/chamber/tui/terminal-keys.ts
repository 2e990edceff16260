/**
 * A browser key as the bytes a terminal sends for it (xterm's sequences, which pi-tui's `matchesKey`/`parseKey`
 * read), for `ctx.ui.custom` components that take keys from the page. Kept apart from the page's code so the
 * daemon's tests check each mapping against pi-tui itself (test/chamber/custom-ui.test.ts). No DOM, no Node.
 */

/** The parts of a KeyboardEvent the mapping reads. */
export interface KeyLike {
	key: string;
	ctrlKey?: boolean;
	altKey?: boolean;
	shiftKey?: boolean;
	metaKey?: boolean;
}

const ESC = "\x1b";

/** Keys with a CSI final letter (`ESC [ A`), which take modifiers as `ESC [ 1 ; m A`. */
const LETTER: Record<string, string> = {
	ArrowUp: "A",
	ArrowDown: "B",
	ArrowRight: "C",
	ArrowLeft: "D",
	Home: "H",
	End: "F",
};

/** Keys written `ESC [ n ~`, with modifiers as `ESC [ n ; m ~`. */
const TILDE: Record<string, number> = {
	Insert: 2,
	Delete: 3,
	PageUp: 5,
	PageDown: 6,
	F5: 15,
	F6: 17,
	F7: 18,
	F8: 19,
	F9: 20,
	F10: 21,
	F11: 23,
	F12: 24,
};

const SS3: Record<string, string> = { F1: "P", F2: "Q", F3: "R", F4: "S" };

/** xterm's modifier parameter: 1 + Shift 1 + Alt 2 + Ctrl 4 (1 alone means none). */
function modifier(e: KeyLike): number {
	return 1 + (e.shiftKey ? 1 : 0) + (e.altKey ? 2 : 0) + (e.ctrlKey ? 4 : 0);
}

/**
 * The terminal input for a key, or undefined for a key a terminal would not send (a lone modifier, a Cmd/Meta
 * combination the browser keeps for copy and paste, a dead key).
 */
export function terminalInput(e: KeyLike): string | undefined {
	if (e.metaKey) return undefined;
	const mod = modifier(e);
	const letter = LETTER[e.key];
	if (letter) return mod === 1 ? `${ESC}[${letter}` : `${ESC}[1;${mod}${letter}`;
	const tilde = TILDE[e.key];
	if (tilde !== undefined) return mod === 1 ? `${ESC}[${tilde}~` : `${ESC}[${tilde};${mod}~`;
	const ss3 = SS3[e.key];
	if (ss3) return mod === 1 ? `${ESC}O${ss3}` : `${ESC}[1;${mod}${ss3}`;
	switch (e.key) {
		case "Enter":
			// Plain terminals send CR for every Enter; Shift+Enter as the kitty protocol writes it, which pi-tui reads.
			if (e.shiftKey) return `${ESC}[13;2u`;
			return e.altKey ? `${ESC}\r` : "\r";
		case "Escape":
			return ESC;
		case "Backspace":
			if (e.ctrlKey) return "\x08";
			return e.altKey ? `${ESC}\x7f` : "\x7f";
		case "Tab":
			return e.shiftKey ? `${ESC}[Z` : "\t";
	}
	if ([...e.key].length !== 1) return undefined;
	if (e.ctrlKey) {
		if (e.key === " ") return "\x00";
		const code = e.key.toLowerCase().charCodeAt(0);
		// Ctrl+@…Ctrl+_ and Ctrl+letter are the control codes 0-31.
		if (code >= 0x61 && code <= 0x7a) return (e.altKey ? ESC : "") + String.fromCharCode(code - 0x60);
		if (code >= 0x40 && code <= 0x5f) return (e.altKey ? ESC : "") + String.fromCharCode(code - 0x40);
		return undefined;
	}
	return e.altKey ? `${ESC}${e.key}` : e.key;
}

/** The on-screen keys for a phone, which has no arrows, Escape or Tab: label, and the key they stand for. */
export const SCREEN_KEYS: readonly { label: string; name: string; key: KeyLike }[] = [
	{ label: "←", name: "Left", key: { key: "ArrowLeft" } },
	{ label: "↑", name: "Up", key: { key: "ArrowUp" } },
	{ label: "↓", name: "Down", key: { key: "ArrowDown" } },
	{ label: "→", name: "Right", key: { key: "ArrowRight" } },
	{ label: "⏎", name: "Enter", key: { key: "Enter" } },
	{ label: "Tab", name: "Tab", key: { key: "Tab" } },
	{ label: "Esc", name: "Escape", key: { key: "Escape" } },
];
