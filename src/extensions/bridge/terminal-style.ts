/** How pi's terminal draws each of the text styles (host/text-styles.ts): its theme's colours and faces. */
import type { TextStyle } from "../host/text-styles.js";

/** What of pi's Theme the styles use (`fg(color, text)`, `bold`, `italic`). */
export interface StyleTheme {
	fg(color: "accent" | "error" | "success" | "warning" | "dim", text: string): string;
	bold(text: string): string;
	italic(text: string): string;
}

export function styleForTerminal(theme: StyleTheme, style: TextStyle | undefined, text: string): string {
	switch (style) {
		case "bold":
			return theme.bold(text);
		case "italic":
			return theme.italic(text);
		case "dim":
		case "accent":
		case "error":
		case "success":
		case "warning":
			return theme.fg(style, text);
		default:
			return text;
	}
}
