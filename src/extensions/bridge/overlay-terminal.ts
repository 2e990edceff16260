/**
 * The terminal's overlay surface: a framed pi-tui overlay (`ctx.ui.custom(…, {overlay: true})`) drawing the
 * extension's rows, a line of its own for callback failures, and — when the overlay declared `input` — pi-tui's
 * single-line Input as the host-owned editor. Keys follow rpi's TUI: Esc closes (the extension first hears
 * `abort`), ↑/↓/PgUp/PgDn/Home/End scroll (Home/End move the cursor when there is an editor), Enter submits a
 * non-empty draft, Ctrl+T is `toggle_mode`; everything else goes to the editor or is swallowed, so nothing
 * falls through to the hidden composer.
 */
import type { ExtensionUIContext, Theme } from "@earendil-works/pi-coding-agent";
import { Input, matchesKey, type TUI, truncateToWidth, visibleWidth } from "@earendil-works/pi-tui";
import { setInputCursor } from "../../pi-seams/input-cursor.js";
import type { OverlayKeyAction, OverlayRow } from "../host/overlay-rows.js";
import { styleForTerminal } from "./terminal-style.js";
import type { OverlayInputEvents, OverlayScreen, OverlaySurface, OverlayView } from "./overlays.js";

const PAGE = 10;

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/g;

/** An extension's text never writes to the terminal itself: an ESC would start a sequence of its choosing. */
const printable = (text: string) => text.replace(CONTROL, "\uFFFD");

class OverlayPanel {
	private rows: OverlayRow[];
	private scroll = 0;
	private status: string | undefined;
	private readonly input: Input | undefined;

	constructor(
		private readonly view: OverlayView,
		private readonly tui: TUI,
		private readonly theme: Theme,
		private readonly events: OverlayInputEvents,
		private readonly finish: () => void,
	) {
		this.rows = view.rows;
		if (view.input) {
			this.input = new Input();
			this.seed(view.input.value);
			this.input.focused = true;
		}
	}

	/** Row lines shown at once: the terminal's height less the frame, the status and the editor. */
	private get window(): number {
		return Math.max(3, Math.min(20, this.tui.terminal.rows - 10));
	}

	setRows(rows: OverlayRow[]): void {
		this.rows = rows;
		this.scroll = Math.min(this.scroll, Math.max(0, rows.length - this.window));
		this.tui.requestRender();
	}

	setStatus(text: string | undefined): void {
		this.status = text;
		this.tui.requestRender();
	}

	/**
	 * A draft is continued, not typed in front of: pi-tui's Input keeps its cursor where it was and has no setter
	 * for it (src/pi-seams/input-cursor.ts).
	 */
	private seed(text: string): void {
		this.input?.setValue(text);
		if (this.input) setInputCursor(this.input, text.length);
	}

	restoreDraft(text: string): void {
		if (this.input && this.input.getValue() === "") this.seed(text);
		this.tui.requestRender();
	}

	invalidate(): void {
		this.input?.invalidate();
	}

	render(width: number): string[] {
		const t = this.theme;
		const inner = Math.max(10, width - 4);
		const border = (s: string) => t.fg("border", s);
		const line = (content: string) => {
			const cut = truncateToWidth(content, inner);
			return `${border("│")} ${cut}${" ".repeat(Math.max(0, inner - visibleWidth(cut)))} ${border("│")}`;
		};
		const title = truncateToWidth(` ${printable(this.view.title)} `, inner);
		const out = [border(`┌─${t.bold(title)}${"─".repeat(Math.max(0, inner - visibleWidth(title)))}─┐`)];
		const shown = this.rows.slice(this.scroll, this.scroll + this.window);
		for (const row of shown) out.push(line(styleForTerminal(t, row.style, printable(row.text))));
		if (this.rows.length === 0) out.push(line(t.fg("dim", "(no rows)")));
		if (this.rows.length > this.window) {
			out.push(line(t.fg("dim", `rows ${this.scroll + 1}–${this.scroll + shown.length} of ${this.rows.length}`)));
		}
		if (this.status) out.push(line(t.fg("warning", printable(this.status))));
		if (this.input) {
			const draft = this.input.getValue();
			const placeholder = this.view.input?.placeholder;
			out.push(border(`├${"─".repeat(inner + 2)}┤`));
			out.push(
				draft === "" && placeholder ? line(`> ${t.fg("dim", placeholder)}`) : line(this.input.render(inner)[0] ?? ""), // Input draws its own "> "
			);
		}
		const hint = this.input ? " Enter send · Esc close · ↑↓ scroll " : " Esc close · ↑↓ scroll ";
		const cutHint = truncateToWidth(hint, inner);
		out.push(border(`└─${t.fg("dim", cutHint)}${"─".repeat(Math.max(0, inner - visibleWidth(cutHint)))}─┘`));
		return out;
	}

	handleInput(data: string): void {
		const key = (action: OverlayKeyAction) => this.events.key(action);
		const last = Math.max(0, this.rows.length - this.window);
		if (matchesKey(data, "escape")) {
			key("abort");
			this.finish();
			return;
		}
		if (matchesKey(data, "up")) {
			this.scroll = Math.max(0, this.scroll - 1);
			key("scroll_up");
		} else if (matchesKey(data, "down")) {
			this.scroll = Math.min(last, this.scroll + 1);
			key("scroll_down");
		} else if (matchesKey(data, "pageUp")) {
			this.scroll = Math.max(0, this.scroll - PAGE);
			key("page_up");
		} else if (matchesKey(data, "pageDown")) {
			this.scroll = Math.min(last, this.scroll + PAGE);
			key("page_down");
		} else if (matchesKey(data, "ctrl+t")) {
			key("toggle_mode");
		} else if (!this.input && matchesKey(data, "home")) {
			this.scroll = 0;
			key("home");
		} else if (!this.input && matchesKey(data, "end")) {
			this.scroll = last;
			key("end");
		} else if (this.input && matchesKey(data, "enter")) {
			const text = this.input.getValue();
			if (text.trim() !== "") {
				this.input.setValue("");
				this.events.submit(text);
			}
		} else if (this.input) {
			this.input.handleInput(data);
		}
		this.tui.requestRender();
	}
}

export function terminalOverlaySurface(ui: ExtensionUIContext): OverlaySurface {
	return (view, events) => {
		let panel: OverlayPanel | undefined;
		let done: (() => void) | undefined;
		let closed = false;
		const end = () => {
			if (closed) return;
			closed = true;
			events.closed();
		};
		// Calls made before pi has built the component are replayed on it.
		const queued: Array<(p: OverlayPanel) => void> = [];
		const onPanel = (apply: (p: OverlayPanel) => void) => (panel ? apply(panel) : queued.push(apply));
		void ui
			.custom<void>(
				(tui, theme, _keybindings, finish) => {
					done = () => finish(undefined);
					panel = new OverlayPanel(view, tui, theme, events, () => done?.());
					for (const apply of queued.splice(0)) apply(panel);
					if (closed) queueMicrotask(() => done?.());
					return panel;
				},
				{
					overlay: true,
					overlayOptions: {
						width: "70%",
						minWidth: 40,
						maxHeight: "90%",
						anchor: "center",
						nonCapturing: view.nonCapturing,
					},
				},
			)
			.then(end, end);
		const screen: OverlayScreen = {
			setRows: (rows) => onPanel((p) => p.setRows(rows)),
			setStatus: (text) => onPanel((p) => p.setStatus(text)),
			restoreDraft: (text) => onPanel((p) => p.restoreDraft(text)),
			close: () => {
				const finish = done;
				end();
				finish?.();
			},
		};
		return screen;
	};
}
