/**
 * Lines a pi component drew on the daemon (src/chamber/tui/styled-text.ts), as the terminal would show them.
 * Colours that name a theme token read pi's dark or light palette (`/api/pi/tui-palette.css`, fetched on first use);
 * `ansiN` colours read the page's own terminal palette.
 */
import { authHeaders } from "../api.js";
import type { StyledLine, StyledSpan } from "../types.js";

let paletteLinked = false;

/** The palette is behind sign-in like every route, so it is fetched with the page's key rather than linked. */
function linkPalette(): void {
	if (paletteLinked || typeof document === "undefined") return;
	paletteLinked = true;
	void fetch("/api/pi/tui-palette.css", { credentials: "same-origin", headers: authHeaders() })
		.then((res) => (res.ok ? res.text() : Promise.reject(new Error(`palette: HTTP ${res.status}`))))
		.then((css) => {
			const style = document.createElement("style");
			style.dataset.pierPalette = "";
			style.textContent = css;
			document.head.append(style);
		})
		.catch(() => {
			// Without pi's palette the lines keep the page's text colour; the next drawing tries again.
			paletteLinked = false;
		});
}

function colour(value: string | undefined): string | undefined {
	if (value === undefined) return undefined;
	return value.startsWith("#") ? value : `var(--pi-${value})`;
}

function Span({ span }: { span: StyledSpan }) {
	const fg = colour(span.inverse ? (span.bg ?? "userMessageBg") : span.fg);
	const bg = colour(span.inverse ? (span.fg ?? "text") : span.bg);
	const style: Record<string, string> = {};
	if (fg) style.color = fg;
	if (bg) style.background = bg;
	if (span.bold) style["font-weight"] = "700";
	if (span.italic) style["font-style"] = "italic";
	if (span.dim) style.opacity = "0.65";
	const lines = [span.underline ? "underline" : "", span.strike ? "line-through" : ""].filter(Boolean);
	if (lines.length) style["text-decoration"] = lines.join(" ");
	if (span.link && /^https?:\/\//.test(span.link))
		return (
			<a href={span.link} target="_blank" rel="noopener noreferrer" style={style}>
				{span.text}
			</a>
		);
	return Object.keys(style).length ? <span style={style}>{span.text}</span> : span.text;
}

export function StyledLines({ lines, testId = "tui-lines" }: { lines: readonly StyledLine[]; testId?: string }) {
	linkPalette();
	return (
		<pre class="tui-lines" data-testid={testId}>
			{lines.map((line, i) => (
				<div class="tui-line" key={i}>
					{line.length === 0 ? "\u00a0" : line.map((span, j) => <Span key={j} span={span} />)}
				</div>
			))}
		</pre>
	);
}
