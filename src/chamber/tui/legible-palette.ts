/**
 * pi's theme colours made legible in the page: many of pi's foreground tokens fall short of WCAG AA (4.5:1)
 * against pi's own backgrounds (light `dim` is 2.6:1 on `toolSuccessBg`), which a terminal user tunes with their
 * terminal and a browser user cannot. Each foreground token that falls short of the ratio against any background it
 * may sit on is moved toward black (light palette) or white (dark palette), as little as it takes; the rest keep
 * pi's exact colour.
 */

/** WCAG AA for normal text. */
export const MIN_CONTRAST = 4.5;

function channels(hex: string): [number, number, number] {
	return [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

function luminance(hex: string): number {
	const [r, g, b] = channels(hex).map((v) => {
		const c = v / 255;
		return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	}) as [number, number, number];
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
	const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
	return (hi + 0.05) / (lo + 0.05);
}

function mix(hex: string, toward: string, share: number): string {
	const from = channels(hex);
	const to = channels(toward);
	return `#${from
		.map((v, i) => Math.round(v + (to[i]! - v) * share))
		.map((v) => v.toString(16).padStart(2, "0"))
		.join("")}`;
}

const isBackground = (token: string) => /Bg$/.test(token);
const HEX = /^#[0-9a-fA-F]{6}$/;

/**
 * `palette` with every foreground token at least MIN_CONTRAST against the palette's background tokens and
 * `pageBackgrounds`; `dark` says which way to move a colour.
 */
export function legiblePalette(
	palette: Record<string, string>,
	dark: boolean,
	pageBackgrounds: readonly string[],
): Record<string, string> {
	const backgrounds = [
		...Object.entries(palette)
			.filter(([t, c]) => isBackground(t) && HEX.test(c))
			.map(([, c]) => c),
		...pageBackgrounds,
	];
	const toward = dark ? "#ffffff" : "#000000";
	const worst = (colour: string) => Math.min(...backgrounds.map((bg) => contrast(colour, bg)));
	const out: Record<string, string> = {};
	for (const [token, colour] of Object.entries(palette)) {
		if (isBackground(token) || !HEX.test(colour) || worst(colour) >= MIN_CONTRAST) {
			out[token] = colour;
			continue;
		}
		let share = 0;
		let moved = colour;
		while (worst(moved) < MIN_CONTRAST && share < 1) {
			share = Math.min(1, share + 0.02);
			moved = mix(colour, toward, share);
		}
		out[token] = moved;
	}
	return out;
}
