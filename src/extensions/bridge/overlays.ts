/**
 * Protocol overlays in a pi session: one open overlay at a time, shown by whichever surface the session's UI
 * has (the chamber's panel, or a pi-tui overlay in the terminal). The host draws the frame and owns keys and
 * the editor; the extension supplies rows (its `overlay_render` answer, then `overlay_set_rows`) and hears
 * what the user did as `overlay_event` invocations. Rows are sanitized on the way in (host/overlay-rows.ts),
 * so a surface only ever receives bounded, redacted rows with known styles.
 */
import type { ExtensionContext, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ExtensionInstance } from "../host/instance.js";
import { type OverlayKeyAction, type OverlayRow, type OverlayView, sanitizeOverlayRows } from "../host/overlay-rows.js";
import type { ContextSnapshot, UiRequest, UiResponse } from "../protocol/frames.js";
import { terminalOverlaySurface } from "./overlay-terminal.js";

export type { OverlayView };

/** What the user did, as the surface reports it. `closed` follows an `abort` key when the user closed it. */
export interface OverlayInputEvents {
	submit(text: string): void;
	key(action: OverlayKeyAction): void;
	closed(): void;
}

/** The open overlay as its surface lets the controller change it. */
export interface OverlayScreen {
	setRows(rows: OverlayRow[]): void;
	/** A line of the overlay's own (a failed callback, a submit in progress); `undefined` clears it. */
	setStatus(text: string | undefined): void;
	/** Puts a draft back in the editor when its submit failed and the user has typed nothing since. */
	restoreDraft(text: string): void;
	close(): void;
}

export type OverlaySurface = (view: OverlayView, events: OverlayInputEvents) => OverlayScreen;

/** A UI context that brings its own overlay surface (the chamber's); pi's terminal uses `ui.custom`. */
interface WithOverlaySurface {
	overlay?: OverlaySurface;
}

/**
 * `terminal`: pi's interactive terminal is on screen. RPC mode also has a UI, but its `custom()` shows nothing
 * and returns at once, so there an overlay would open and vanish unseen.
 */
export function overlaySurfaceOf(ui: ExtensionUIContext, terminal: boolean): OverlaySurface {
	const own = (ui as WithOverlaySurface).overlay;
	if (typeof own === "function") return own.bind(ui);
	if (!terminal) {
		throw new Error(
			"overlays need the terminal or the chamber: this session has no overlay surface (json, print or rpc mode)",
		);
	}
	return terminalOverlaySurface(ui);
}

interface OpenOverlay {
	id: string;
	instance: ExtensionInstance;
	screen: OverlayScreen;
	submitting: boolean;
}

export class OverlayController {
	/** The rows each overlay last pushed with `overlay_set_rows`, shown when it is opened by its extension. */
	private readonly pushed = new Map<string, OverlayRow[]>();
	private open: OpenOverlay | undefined;

	constructor(
		private readonly host: ExtensionHost,
		/** The session's context snapshot for an invocation, if the session is still there. */
		private readonly snapshot: () => ContextSnapshot | undefined,
	) {}

	get ids(): string[] {
		return [...this.host.registry.overlays.keys()];
	}

	get openId(): string | undefined {
		return this.open?.id;
	}

	/** The user asked for overlay `id` (`/overlay id`): its `render` decides the rows and the opening draft. */
	async openByUser(id: string, ctx: ExtensionContext): Promise<void> {
		const entry = this.host.registry.overlays.get(id);
		if (!entry) {
			const known = this.ids.join(", ") || "none";
			throw new Error(`unknown extension overlay "${id}" (registered: ${known})`);
		}
		const surface = overlaySurfaceOf(ctx.ui, this.inTerminal(ctx.hasUI));
		const rendered = await this.host.invokeOverlayRender(id, this.invokeOptions());
		const { descriptor, instance } = entry;
		this.show(surface, instance, {
			id,
			title: descriptor.title,
			extensionId: instance.id,
			rows: rendered.rows,
			...(descriptor.input
				? {
						input: {
							...(descriptor.input.placeholder !== undefined ? { placeholder: descriptor.input.placeholder } : {}),
							multiline: descriptor.input.multiline ?? false,
							value: rendered.input?.value ?? "",
						},
					}
				: {}),
			nonCapturing: false,
		});
	}

	/** The extension's own UI requests: `overlay_set_rows` and `overlay_open`. */
	answer(
		request: Extract<UiRequest, { type: "overlay_set_rows" | "overlay_open" }>,
		instance: ExtensionInstance,
		ui: ExtensionUIContext,
		hasUI: boolean,
	): UiResponse {
		const entry = this.host.registry.overlays.get(request.id);
		if (!entry || entry.instance !== instance) {
			const own = [...this.host.registry.overlays.values()]
				.filter((e) => e.instance === instance)
				.map((e) => e.descriptor.id);
			throw new Error(
				`unknown extension overlay "${request.id}": extension ${instance.id} registered ${own.length ? own.map((o) => `"${o}"`).join(", ") : "no overlay"}`,
			);
		}
		if (request.type === "overlay_set_rows") {
			const rows = sanitizeOverlayRows(request.rows);
			this.pushed.set(request.id, rows);
			if (this.open?.id === request.id) this.open.screen.setRows(rows);
			return { type: "acknowledged" };
		}
		const surface = overlaySurfaceOf(ui, this.inTerminal(hasUI));
		// The registration is the authority for the title and the editor; the request may only narrow them.
		const declared = entry.descriptor.input ?? request.input;
		this.show(surface, instance, {
			id: request.id,
			title: request.title ?? entry.descriptor.title,
			extensionId: instance.id,
			rows: this.pushed.get(request.id) ?? [],
			...(declared
				? {
						input: {
							...(declared.placeholder !== undefined ? { placeholder: declared.placeholder } : {}),
							multiline: declared.multiline ?? false,
							value: "",
						},
					}
				: {}),
			nonCapturing: request.nonCapturing ?? false,
		});
		return { type: "overlay_opened" };
	}

	/** Closes the open overlay (the session ends, a reload replaced its extension). */
	close(): void {
		const open = this.open;
		this.open = undefined;
		open?.screen.close();
	}

	private show(surface: OverlaySurface, instance: ExtensionInstance, view: OverlayView): void {
		this.close();
		const state: { current?: OpenOverlay } = {};
		const mine = () => state.current !== undefined && this.open === state.current;
		const screen = surface(view, {
			submit: (text) => {
				const open = state.current;
				if (!open || !mine()) return;
				if (open.submitting) {
					open.screen.setStatus("Submit in progress…");
					open.screen.restoreDraft(text);
					return;
				}
				open.submitting = true;
				open.screen.setStatus(undefined);
				this.dispatch(open, { kind: "submit", text }, () => open.screen.restoreDraft(text));
			},
			key: (action) => {
				const open = state.current;
				if (open && mine()) this.dispatch(open, { kind: "key", action });
			},
			closed: () => {
				if (mine()) this.open = undefined;
			},
		});
		state.current = { id: view.id, instance, screen, submitting: false };
		this.open = state.current;
	}

	/**
	 * Off the key path: the surface never waits for an extension. A failure is the overlay's own line, never
	 * the session's error; the owning extension's failure stays its own.
	 */
	private dispatch(
		open: OpenOverlay,
		event: { kind: "submit"; text: string } | { kind: "key"; action: OverlayKeyAction },
		onFailure?: () => void,
	): void {
		this.host.invokeOverlayEvent(open.id, event, this.invokeOptions()).then(
			() => {
				if (event.kind === "submit") open.submitting = false;
				if (this.open === open) open.screen.setStatus(undefined);
			},
			(error: unknown) => {
				if (event.kind === "submit") open.submitting = false;
				if (this.open !== open) return;
				open.screen.setStatus(
					`${event.kind === "submit" ? "submit" : event.action} failed: ${(error as Error).message}`,
				);
				onFailure?.();
			},
		);
	}

	private inTerminal(hasUI: boolean): boolean {
		return hasUI && this.host.options.mode === "tui";
	}

	private invokeOptions() {
		const context = this.snapshot();
		return context ? { context } : {};
	}
}
