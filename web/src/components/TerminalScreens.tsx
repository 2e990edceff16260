/**
 * One xterm.js screen per terminal, kept while the panel is open: output is written to it whether or not its tab
 * shows, keys go to the daemon in order (one request at a time; what is typed meanwhile goes in the next), and the
 * screen's size follows its box (xterm's fit addon), told to the daemon when it changes. Part of the terminal's
 * own chunk: nothing of xterm.js loads before the user opens a terminal.
 */
import { FitAddon } from "@xterm/addon-fit";
import { Terminal as Xterm } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef } from "preact/hooks";
import { api, describeError } from "../api.js";
import { TERMINAL_LIMITS } from "../../../src/chamber/terminal/terminal-wire.js";

export interface Screen {
	readonly id: string;
	readonly term: Xterm;
	readonly fit: FitAddon;
	opened: boolean;
	/** The size last told to the daemon, `colsxrows`. */
	told: string;
	/** Typed and not sent yet, and whether a request is on its way. */
	pending: string;
	sending: boolean;
	/** The shell is gone: keys and sizes are not sent any more. */
	ended: boolean;
}

/** A dark screen in every theme: what terminal programs expect, with xterm's own ANSI palette. */
const THEME = { background: "#16181d", foreground: "#e4e6eb", cursor: "#e4e6eb", selectionBackground: "#3a4a66" };
const FONT = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace';
const PHONE = "(max-width: 699px)";

export class Screens {
	private readonly map = new Map<string, Screen>();

	constructor(
		private readonly sessionId: string,
		private readonly onError: (message: string | undefined) => void,
	) {}

	/** The terminal's screen, made on first use (output may arrive before the tab is ever shown). */
	get(id: string): Screen {
		let screen = this.map.get(id);
		if (screen) return screen;
		const term = new Xterm({
			fontFamily: FONT,
			fontSize: matchMedia(PHONE).matches ? 12 : 13,
			theme: THEME,
			cursorBlink: false,
			scrollback: 5000,
			allowProposedApi: false,
		});
		const fit = new FitAddon();
		term.loadAddon(fit);
		screen = { id, term, fit, opened: false, told: "", pending: "", sending: false, ended: false };
		const made = screen;
		term.onData((data) => this.type(made, data));
		this.map.set(id, screen);
		return screen;
	}

	has(id: string): boolean {
		return this.map.has(id);
	}

	/** Sends what was typed; a paste longer than one request goes in pieces, in order. */
	type(screen: Screen, data: string): void {
		if (screen.ended) return;
		screen.pending += data;
		if (screen.sending) return;
		screen.sending = true;
		void (async () => {
			while (screen.pending !== "" && !screen.ended) {
				let cut = Math.min(screen.pending.length, TERMINAL_LIMITS.inputChars);
				// Never half a surrogate pair.
				if (cut < screen.pending.length && /[\ud800-\udbff]/.test(screen.pending.charAt(cut - 1))) cut--;
				const piece = screen.pending.slice(0, cut);
				screen.pending = screen.pending.slice(cut);
				try {
					await api.terminalInput(this.sessionId, screen.id, piece);
					this.onError(undefined);
				} catch (err) {
					this.onError(describeError(err));
				}
			}
			screen.sending = false;
		})();
	}

	/** Fits a shown screen to its box and tells the daemon a new size. */
	fitTo(screen: Screen): void {
		if (!screen.opened) return;
		const dims = screen.fit.proposeDimensions();
		if (!dims || !Number.isFinite(dims.cols) || !Number.isFinite(dims.rows) || dims.cols < 2 || dims.rows < 1) return;
		screen.fit.fit();
		const cols = Math.min(screen.term.cols, TERMINAL_LIMITS.maxColumns);
		const rows = Math.min(screen.term.rows, TERMINAL_LIMITS.maxRows);
		const size = `${cols}x${rows}`;
		if (size === screen.told || screen.ended) return;
		screen.told = size;
		api.resizeTerminal(this.sessionId, screen.id, cols, rows).catch(() => {
			// The terminal ended meanwhile: its exit event says so.
		});
	}

	dispose(id: string): void {
		this.map.get(id)?.term.dispose();
		this.map.delete(id);
	}

	disposeAll(): void {
		for (const screen of this.map.values()) screen.term.dispose();
		this.map.clear();
	}
}

/** Where a screen is drawn. It opens on first showing (xterm measures its font then) and fits whenever shown. */
export function XtermSlot({ screens, screen, active }: { screens: Screens; screen: Screen; active: boolean }) {
	const slot = useRef<HTMLDivElement>(null);
	useEffect(() => {
		const el = slot.current;
		if (!active || !el) return;
		if (!screen.opened) {
			screen.term.open(el);
			screen.opened = true;
		}
		screens.fitTo(screen);
		screen.term.focus();
		const observer = new ResizeObserver(() => screens.fitTo(screen));
		observer.observe(el);
		return () => observer.disconnect();
	}, [active, screen]);
	return (
		<div
			ref={slot}
			class="terminal-slot"
			hidden={!active}
			data-testid="terminal-screen"
			data-terminal-id={screen.id}
			data-active={active ? "true" : "false"}
		/>
	);
}
