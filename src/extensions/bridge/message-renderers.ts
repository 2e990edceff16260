/**
 * `message_renderer` registrations: a custom message of a registered type is drawn by its extension, through a
 * `render_message` invocation whose answer is rpi's RenderedMessage, `{lines: [[{text, style?}]]}`. pi's terminal
 * gets it through `pi.registerMessageRenderer`; the chamber asks `renderMessage` and shows the lines as text.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { truncateToWidth } from "@earendil-works/pi-tui";
import type { ExtensionHost } from "../host/host.js";
import type { ContextSnapshot } from "../protocol/frames.js";
import { TEXT_STYLES, type TextStyle } from "../host/text-styles.js";
import { isRecord } from "../protocol/json-object.js";
import { type StyleTheme, styleForTerminal } from "./terminal-style.js";

/** Styles a span may carry (rpi's overlay style names); any other is dropped, the text kept. */
export type RenderStyle = TextStyle;
/** Past these a rendered message is cut, with a last line saying how much was left out. */
export const MAX_RENDERED_LINES = 200;
export const MAX_RENDERED_LINE_CHARS = 2_000;

export interface RenderedSpan {
	text: string;
	style?: RenderStyle;
}
export type RenderedLines = RenderedSpan[][];

/** The custom message as pi has it (CustomMessage, or a session file's custom_message entry). */
export interface RenderableMessage {
	customType: string;
	content: unknown;
	display?: boolean;
	details?: unknown;
	timestamp?: number;
}

/**
 * The extension's lines for a custom message, or undefined when no extension renders its type. Fails (naming the
 * extension and the field) when the invocation fails or answers another shape.
 */
export async function renderMessage(
	host: ExtensionHost,
	message: RenderableMessage,
	options: { expanded?: boolean; context?: ContextSnapshot; signal?: AbortSignal } = {},
): Promise<RenderedLines | undefined> {
	const owner = host.registry.messageRenderers.get(message.customType)?.instance;
	if (!owner?.isLive) return undefined;
	const value = await owner.invoke(
		{
			kind: "render_message",
			request: { messageType: message.customType, message, expanded: options.expanded ?? false },
		},
		{
			timeoutMs: host.timeouts.invocationMs,
			...(options.context ? { context: options.context } : {}),
			...(options.signal ? { signal: options.signal } : {}),
		},
	);
	try {
		return toRenderedLines(value);
	} catch (error) {
		throw new Error(
			`extension ${owner.id} rendered a "${message.customType}" message invalidly: ${(error as Error).message}`,
		);
	}
}

/** rpi's RenderedMessage checked (unknown fields refused, as every protocol object) and held to the limits. */
export function toRenderedLines(value: unknown): RenderedLines {
	if (!isRecord(value)) throw new Error('the answer must be an object {"lines": [[{"text", "style"?}]]}');
	for (const key of Object.keys(value)) if (key !== "lines") throw new Error(`unknown field "${key}"`);
	const lines = value.lines ?? [];
	if (!Array.isArray(lines)) throw new Error("lines must be an array of lines (arrays of spans)");
	const out: RenderedLines = lines.slice(0, MAX_RENDERED_LINES).map((line, i) => {
		if (!Array.isArray(line)) throw new Error(`lines[${i}] must be an array of spans`);
		let room = MAX_RENDERED_LINE_CHARS;
		const spans: RenderedSpan[] = [];
		line.forEach((span, j) => {
			const at = `lines[${i}][${j}]`;
			if (!isRecord(span)) throw new Error(`${at} must be an object {"text", "style"?}`);
			for (const key of Object.keys(span))
				if (key !== "text" && key !== "style") throw new Error(`${at} has an unknown field "${key}"`);
			if (typeof span.text !== "string") throw new Error(`${at}.text must be a string`);
			if (span.style !== undefined && typeof span.style !== "string") throw new Error(`${at}.style must be a string`);
			if (room <= 0) return;
			const text = [...span.text].slice(0, room).join("");
			room -= [...text].length;
			const style = TEXT_STYLES.find((s) => s === span.style);
			spans.push(style && style !== "default" ? { text, style } : { text });
		});
		return spans;
	});
	if (lines.length > MAX_RENDERED_LINES) {
		out.push([{ text: `… ${lines.length - MAX_RENDERED_LINES} more lines not shown`, style: "dim" }]);
	}
	return out;
}

/** The lines as plain text, one per line (the chamber's transcript, logs). */
export const renderedText = (lines: RenderedLines): string =>
	lines.map((line) => line.map((span) => span.text).join("")).join("\n");

/**
 * pi's terminal asks for a component synchronously; the extension answers over the wire. The component shows the
 * message's own text until the lines arrive, then (the terminal asked to draw again) the lines, or the failure.
 */
export class RenderedMessageComponent {
	private lines: string[] | undefined;

	/** `repaint`: asked once the lines are in, so the terminal shows them without waiting for its next event. */
	constructor(
		pending: Promise<RenderedLines | undefined>,
		private readonly placeholder: string,
		theme: StyleTheme,
		repaint: () => void = () => {},
	) {
		pending
			.then(
				(lines) => {
					if (lines)
						this.lines = lines.map((line) =>
							line.map((span) => styleForTerminal(theme, span.style, span.text)).join(""),
						);
				},
				(error: unknown) => {
					this.lines = [theme.fg("error", (error as Error).message ?? String(error))];
				},
			)
			.then(() => {
				if (this.lines) repaint();
			});
	}

	get ready(): boolean {
		return this.lines !== undefined;
	}

	render(width: number): string[] {
		// pi's terminal refuses a line wider than the screen.
		return (this.lines ?? this.placeholder.split("\n")).map((line) => truncateToWidth(line, width));
	}

	invalidate(): void {}
}

const contentText = (content: unknown): string =>
	typeof content === "string"
		? content
		: Array.isArray(content)
			? content.map((b) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).join("")
			: "";

/**
 * pi's terminal asks a renderer again at every rebuild of a row (a toggle, a theme change): one invocation per
 * object (a message, an entry) and `expanded`, kept as long as pi keeps the object.
 */
export function askedOncePer<T>(): (of: object, expanded: boolean, ask: () => Promise<T>) => Promise<T> {
	const asked = new WeakMap<object, Map<boolean, Promise<T>>>();
	return (of, expanded, ask) => {
		const byExpanded = asked.get(of) ?? new Map<boolean, Promise<T>>();
		asked.set(of, byExpanded);
		let pending = byExpanded.get(expanded);
		if (!pending) {
			pending = ask();
			byExpanded.set(expanded, pending);
		}
		return pending;
	};
}

/** `repaint`: makes pi's terminal draw again (the bridge clears a status, which pi follows with a render). */
export function registerMessageRenderers(
	pi: ExtensionAPI,
	host: ExtensionHost,
	snapshot: () => ContextSnapshot | undefined,
	repaint?: () => void,
): void {
	const linesOf = askedOncePer<RenderedLines | undefined>();
	for (const messageType of host.registry.messageRenderers.keys()) {
		pi.registerMessageRenderer(messageType, (message, { expanded }, theme) => {
			const pending = linesOf(message, expanded, () => {
				const context = snapshot();
				return renderMessage(host, message as RenderableMessage, { expanded, ...(context ? { context } : {}) });
			});
			return new RenderedMessageComponent(
				pending,
				contentText(message.content),
				theme as unknown as StyleTheme,
				repaint,
			);
		});
	}
}
