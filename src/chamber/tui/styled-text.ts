/**
 * pi-tui lines (text with ANSI escapes) as styled spans for the browser. The wire shape is declared here, once.
 *
 * Colours: a token of the token theme (`src/pi-seams/tui-render.ts`) becomes its name (`"accent"`), so the browser
 * colours it from pi's dark or light palette; the 16 terminal colours become `"ansi0"`…`"ansi15"` (the page's own
 * palette); any other colour is kept as `#rrggbb`. Escapes that only make sense on a terminal (cursor moves, the
 * cursor marker, images) are dropped; an OSC 8 hyperlink keeps its target.
 */
import { TOKEN_MARK, type ThemeTokenNames } from "../../pi-seams/tui-render.js";

/** One run of text in one style. `fg`/`bg`: a theme token name, `ansiN`, or `#rrggbb`. */
export interface StyledSpan {
	text: string;
	fg?: string;
	bg?: string;
	bold?: true;
	dim?: true;
	italic?: true;
	underline?: true;
	strike?: true;
	inverse?: true;
	/** An OSC 8 hyperlink's target. */
	link?: string;
}
export type StyledLine = StyledSpan[];

type Style = Omit<StyledSpan, "text">;

const ESC = "\x1b";

function cube(n: number): number {
	return n === 0 ? 0 : 55 + n * 40;
}

/** xterm's 256-colour palette past the 16 named colours, as `#rrggbb`. */
function color256(n: number): string {
	if (n < 16) return `ansi${n}`;
	const hex = (v: number) => v.toString(16).padStart(2, "0");
	if (n >= 232) {
		const v = 8 + (n - 232) * 10;
		return `#${hex(v)}${hex(v)}${hex(v)}`;
	}
	const i = n - 16;
	return `#${hex(cube(Math.floor(i / 36)))}${hex(cube(Math.floor(i / 6) % 6))}${hex(cube(i % 6))}`;
}

function rgbName(r: number, g: number, b: number, tokens: ThemeTokenNames): string {
	if (r === TOKEN_MARK.red) {
		const list =
			b === TOKEN_MARK.foreground ? tokens.foreground : b === TOKEN_MARK.background ? tokens.background : undefined;
		const name = list?.[g];
		// A background token used as a foreground (or the reverse) is still that token.
		if (name !== undefined) return name;
	}
	const hex = (v: number) => Math.max(0, Math.min(255, v)).toString(16).padStart(2, "0");
	return `#${hex(r)}${hex(g)}${hex(b)}`;
}

/** Applies one SGR sequence's parameters to `style`. */
function applySgr(params: number[], style: Style, tokens: ThemeTokenNames): void {
	if (params.length === 0) params = [0];
	for (let i = 0; i < params.length; i++) {
		const p = params[i] ?? 0;
		if (p === 0) for (const key of Object.keys(style)) delete style[key as keyof Style];
		else if (p === 1) style.bold = true;
		else if (p === 2) style.dim = true;
		else if (p === 3) style.italic = true;
		else if (p === 4) style.underline = true;
		else if (p === 7) style.inverse = true;
		else if (p === 9) style.strike = true;
		else if (p === 22) {
			delete style.bold;
			delete style.dim;
		} else if (p === 23) delete style.italic;
		else if (p === 24) delete style.underline;
		else if (p === 27) delete style.inverse;
		else if (p === 29) delete style.strike;
		else if (p >= 30 && p <= 37) style.fg = `ansi${p - 30}`;
		else if (p >= 90 && p <= 97) style.fg = `ansi${p - 90 + 8}`;
		else if (p === 39) delete style.fg;
		else if (p >= 40 && p <= 47) style.bg = `ansi${p - 40}`;
		else if (p >= 100 && p <= 107) style.bg = `ansi${p - 100 + 8}`;
		else if (p === 49) delete style.bg;
		else if (p === 38 || p === 48) {
			const key = p === 38 ? "fg" : "bg";
			if (params[i + 1] === 5 && i + 2 < params.length) {
				style[key] = color256(params[i + 2] ?? 0);
				i += 2;
			} else if (params[i + 1] === 2 && i + 4 < params.length) {
				style[key] = rgbName(params[i + 2] ?? 0, params[i + 3] ?? 0, params[i + 4] ?? 0, tokens);
				i += 4;
			} else i = params.length;
		}
	}
}

function sameStyle(a: Style, b: Style): boolean {
	const ka = Object.keys(a);
	if (ka.length !== Object.keys(b).length) return false;
	return ka.every((k) => a[k as keyof Style] === b[k as keyof Style]);
}

/** Where the escape sequence starting at `i` (an ESC) ends (exclusive), or the end of the text. */
function escapeEnd(line: string, i: number): number {
	const kind = line[i + 1];
	if (kind === "[") {
		let j = i + 2;
		while (j < line.length && !/[\x40-\x7e]/.test(line[j] ?? "")) j++;
		return Math.min(j + 1, line.length);
	}
	if (kind === "]" || kind === "_" || kind === "P" || kind === "^") {
		// OSC/APC/DCS/PM: up to BEL or ST (ESC \).
		for (let j = i + 2; j < line.length; j++) {
			if (line[j] === "\x07") return j + 1;
			if (line[j] === ESC && line[j + 1] === "\\") return j + 2;
		}
		return line.length;
	}
	return Math.min(i + 2, line.length);
}

/** One line of pi-tui output as spans. */
export function styledLine(line: string, tokens: ThemeTokenNames): StyledLine {
	const spans: StyledLine = [];
	const style: Style = {};
	let text = "";
	let textStyle: Style = {};
	const flush = () => {
		if (text) spans.push({ text, ...textStyle });
		text = "";
	};
	for (let i = 0; i < line.length; ) {
		const ch = line[i] ?? "";
		if (ch === ESC) {
			const end = escapeEnd(line, i);
			const seq = line.slice(i, end);
			if (seq.startsWith(`${ESC}[`) && seq.endsWith("m")) {
				const params = seq
					.slice(2, -1)
					.split(/[;:]/)
					.filter((p) => p !== "")
					.map(Number);
				applySgr(params, style, tokens);
			} else if (seq.startsWith(`${ESC}]8;`)) {
				const body = seq.slice(2, seq.endsWith("\x07") ? -1 : -2);
				const target = body.split(";").slice(2).join(";");
				if (target) style.link = target;
				else delete style.link;
			}
			i = end;
			continue;
		}
		const code = ch.charCodeAt(0);
		if (code < 0x20 && ch !== "\t") {
			i++;
			continue;
		}
		if (!sameStyle(style, textStyle)) {
			flush();
			textStyle = { ...style };
		}
		text += ch;
		i++;
	}
	flush();
	return spans;
}

/** Lines of pi-tui output as styled lines. */
export function styledLines(lines: readonly string[], tokens: ThemeTokenNames): StyledLine[] {
	return lines.map((line) => styledLine(line, tokens));
}

/** The plain text of styled lines (what a terminal shows with its escapes stripped). */
export function plainText(lines: readonly StyledLine[]): string {
	return lines.map((line) => line.map((span) => span.text).join("")).join("\n");
}
