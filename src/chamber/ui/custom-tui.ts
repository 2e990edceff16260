/**
 * What a `ctx.ui.custom()` factory gets as pi's `tui` in the chamber: `requestRender()` (a redraw, coalesced and
 * paced), `terminal.columns`/`rows` (the page's size), and pi-tui's focus and overlay calls a component may make on
 * itself. Every other member of pi's TUI throws a sentence naming it: pi's terminal has it, the browser does not,
 * and a silent `undefined` would fail later in the extension with nothing to go on.
 */
import { CUSTOM_LIMITS } from "./custom-wire.js";

export interface TerminalSize {
	columns: number;
	rows: number;
}

export function notInChamber(member: string): Error {
	return new Error(`ctx.ui.custom: tui.${member} is not available in the chamber`);
}

/** Timers, injectable so the pacing is tested without a clock. */
export interface Timers {
	now(): number;
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
	now: () => Date.now(),
	setTimeout: (fn, ms) => setTimeout(fn, ms),
	clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Coalesces redraw requests: the first one after a quiet spell draws on the next turn, later ones wait until a
 * frame interval has passed since the last frame, and any number of requests in between make one frame.
 */
export class RenderPacer {
	private timer: unknown;
	private lastFrame = Number.NEGATIVE_INFINITY;
	private stopped = false;
	readonly interval = Math.ceil(1000 / CUSTOM_LIMITS.framesPerSecond);

	constructor(
		private readonly draw: () => void,
		private readonly timers: Timers = realTimers,
	) {}

	request(): void {
		if (this.stopped || this.timer !== undefined) return;
		const wait = Math.max(0, this.lastFrame + this.interval - this.timers.now());
		this.timer = this.timers.setTimeout(() => {
			this.timer = undefined;
			if (this.stopped) return;
			this.lastFrame = this.timers.now();
			this.draw();
		}, wait);
	}

	stop(): void {
		this.stopped = true;
		if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
		this.timer = undefined;
	}
}

/** pi-tui's terminal, as far as the page has one: its size. Writing to it is the daemon's business, not a component's. */
function terminalFacade(size: () => TerminalSize): object {
	const known = {
		get columns() {
			return size().columns;
		},
		get rows() {
			return size().rows;
		},
	};
	return new Proxy(known, {
		get(target, name) {
			if (name in target) return Reflect.get(target, name);
			if (typeof name === "symbol" || name === "then") return undefined;
			throw notInChamber(`terminal.${name}`);
		},
	});
}

/**
 * The `tui` a factory receives. `requestRender` redraws this component; `setFocus`, `showOverlay`/`hideOverlay`
 * are honoured for the component itself (the chamber's overlay already has the keyboard) and refused for another.
 */
export function tuiFacade(size: () => TerminalSize, requestRender: () => void): object {
	const terminal = terminalFacade(size);
	const known: Record<string, unknown> = {
		requestRender: () => requestRender(),
		terminal,
		setFocus: () => {},
		invalidate: () => requestRender(),
	};
	return new Proxy(known, {
		get(target, name) {
			if (typeof name === "string" && Object.hasOwn(target, name)) return target[name];
			// Promise adapters and inspectors probe these; answering undefined keeps `await tui` and logging harmless.
			if (typeof name === "symbol" || name === "then" || name === "toJSON") return undefined;
			throw notInChamber(String(name));
		},
		has: (target, name) => typeof name === "string" && Object.hasOwn(target, name),
	});
}

/**
 * What `options.onHandle` gets for an `overlay: true` component: the chamber's overlay is always shown and focused
 * while open, so those questions have answers; hiding, moving focus away or measuring it have none.
 */
export function overlayHandleFacade(): object {
	const known: Record<string, unknown> = {
		isHidden: () => false,
		isFocused: () => true,
		focus: () => {},
	};
	return new Proxy(known, {
		get(target, name) {
			if (typeof name === "string" && Object.hasOwn(target, name)) return target[name];
			if (typeof name === "symbol" || name === "then" || name === "toJSON") return undefined;
			return () => {
				throw new Error(`ctx.ui.custom: the overlay handle's ${String(name)}() is not available in the chamber`);
			};
		},
	});
}
