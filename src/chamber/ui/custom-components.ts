/**
 * `ctx.ui.custom(factory, options)` in the chamber, as pi's interactive mode runs it (`showExtensionCustom`): the
 * factory gets a `tui` (custom-tui.ts), the process's token theme, the user's keybindings and `done`; the component
 * it returns is drawn on the daemon at the width the page reported and sent as styled lines; keys typed in the page
 * reach its `handleInput` as terminal input; `done(value)` resolves the call and disposes the component, as in pi.
 *
 * The open components are part of the session's UI snapshot, so a page that reloads shows them again. Cancel (and
 * the session closing) resolves the call with `undefined`; a component whose factory, render or handleInput throws
 * is closed with an error row naming its extension, and the call resolves with `undefined`: the session goes on.
 */
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { type Component, setKeybindings } from "@earendil-works/pi-tui";
import { agentDir } from "../../agent/paths.js";
import { installTokenTheme, keybindingsFor } from "../../pi-seams/tui-render.js";
import { drawComponent, snapWidth } from "../tui/draw.js";
import type { StyledLine } from "../tui/styled-text.js";
import {
	overlayHandleFacade,
	RenderPacer,
	realTimers,
	type TerminalSize,
	type Timers,
	tuiFacade,
} from "./custom-tui.js";
import {
	CUSTOM_LIMITS,
	type CustomCloseReason,
	type CustomEventPayloads,
	type CustomInput,
	type CustomView,
} from "./custom-wire.js";
import { UiLimitError } from "./ui-limits.js";

type CustomComponent = Component & { dispose?(): void; focused?: boolean };
type Factory = Parameters<ExtensionUIContext["custom"]>[0];
type Options = Parameters<ExtensionUIContext["custom"]>[1] & { timeout?: number };

export interface CustomHooks {
	publish<E extends keyof CustomEventPayloads>(event: E, payload: CustomEventPayloads[E]): void;
	/** The extension calling `ctx.ui.custom` right now, by label, when it can be told. */
	caller(): string | undefined;
	/** A transcript error row. */
	reportError(message: string, source?: string): void;
	/** A component opened or closed (the session list's "waiting" count). */
	changed(): void;
}

export type CustomOutcome = { ok: true } | { ok: false; status: 404 | 422; code: string; message: string };

interface Open {
	view: CustomView;
	component: CustomComponent | undefined;
	pacer: RenderPacer;
	close(reason: CustomCloseReason, value?: unknown): void;
	fail(error: unknown): void;
}

let counter = 0;
let keybindingsInstalled = false;

/** pi-tui's components read the process-wide keybindings (`getKeybindings()`); pi's terminal sets the user's. */
async function factoryKeybindings(): Promise<Awaited<ReturnType<typeof keybindingsFor>>> {
	const manager = await keybindingsFor(agentDir());
	if (!keybindingsInstalled) {
		keybindingsInstalled = true;
		setKeybindings(manager as unknown as Parameters<typeof setKeybindings>[0]);
	}
	return manager;
}

/** The frame's lines: at most `linesPerFrame`, the cut ones counted on the last. */
function capped(component: CustomComponent): Component {
	return {
		render(width) {
			const lines = component.render(width);
			if (lines.length <= CUSTOM_LIMITS.linesPerFrame) return lines;
			const kept = lines.slice(0, CUSTOM_LIMITS.linesPerFrame - 1);
			return [...kept, `\x1b[2m… ${lines.length - kept.length} more lines not shown\x1b[22m`];
		},
		invalidate: () => component.invalidate(),
	};
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

export class CustomComponents {
	private readonly open = new Map<string, Open>();
	private size: TerminalSize = { columns: 80, rows: 24 };

	constructor(
		private readonly hooks: CustomHooks,
		private readonly timers: Timers = realTimers,
	) {}

	get count(): number {
		return this.open.size;
	}

	views(): CustomView[] {
		return [...this.open.values()].map((o) => o.view);
	}

	show<T>(factory: Factory, options?: Options): Promise<T> {
		if (this.open.size >= CUSTOM_LIMITS.open)
			return Promise.reject(
				new UiLimitError(`ctx.ui.custom refused: ${CUSTOM_LIMITS.open} components are already open in this session`),
			);
		if (typeof factory !== "function")
			return Promise.reject(new TypeError("ctx.ui.custom: the first argument must be a factory function"));
		const extension = this.hooks.caller();
		const customId = `cst_${Date.now().toString(36)}_${(++counter).toString(36)}`;
		const timeout = typeof options?.timeout === "number" && options.timeout > 0 ? options.timeout : undefined;
		const view: CustomView = {
			customId,
			...(extension ? { extension } : {}),
			overlay: options?.overlay === true,
			columns: snapWidth(this.size.columns),
			lines: [],
			...(timeout ? { expiresAt: Date.now() + timeout } : {}),
		};
		return new Promise<T>((resolve, reject) => {
			let closed = false;
			let timer: unknown;
			const entry: Open = {
				view,
				component: undefined,
				pacer: new RenderPacer(() => void this.draw(entry), this.timers),
				close: (reason, value) => {
					if (closed) return;
					closed = true;
					entry.pacer.stop();
					if (timer !== undefined) this.timers.clearTimeout(timer);
					if (this.open.delete(customId)) {
						this.hooks.publish("extension.custom.close", { customId, reason });
						this.hooks.changed();
					}
					try {
						entry.component?.dispose?.();
					} catch {
						// pi ignores a failing dispose too: the call's answer matters more.
					}
					resolve((reason === "done" ? value : undefined) as T);
				},
				fail: (error) => {
					if (closed) return;
					const who = extension ?? "an extension";
					this.hooks.reportError(
						`ctx.ui.custom: the component of ${who} failed and was closed: ${messageOf(error)}`,
						extension ?? "ctx.ui.custom",
					);
					entry.close("error");
				},
			};
			const done = (value: unknown) => entry.close("done", value);
			const tui = tuiFacade(
				() => this.size,
				() => entry.pacer.request(),
			);
			Promise.all([installTokenTheme(), factoryKeybindings()])
				.then(([{ theme }, keybindings]) =>
					factory(tui as never, theme, keybindings, done as (result: unknown) => void),
				)
				.then(async (component) => {
					if (closed) {
						component?.dispose?.();
						return;
					}
					if (!component || typeof component.render !== "function")
						throw new TypeError("the factory returned no component (an object with render(width))");
					entry.component = component;
					// pi's TUI tells a Focusable component it has the keyboard; the overlay has it now.
					if ("focused" in component) component.focused = true;
					view.lines = await this.lines(component, view.columns);
					if (closed) return;
					this.open.set(customId, entry);
					if (timeout) timer = this.timers.setTimeout(() => entry.close("timeout"), timeout);
					this.hooks.publish("extension.custom.open", { custom: view });
					this.hooks.changed();
					if (view.overlay) options?.onHandle?.(overlayHandleFacade() as never);
				})
				.catch((error) => {
					if (closed) return;
					if (entry.component) entry.fail(error);
					else {
						// The factory itself failed: pi rejects the call with its error, and so does the chamber.
						closed = true;
						entry.pacer.stop();
						reject(error);
					}
				});
		});
	}

	private lines(component: CustomComponent, columns: number): Promise<StyledLine[]> {
		return drawComponent(capped(component), columns);
	}

	private async draw(entry: Open): Promise<void> {
		const { component, view } = entry;
		if (!component || !this.open.has(view.customId)) return;
		const columns = snapWidth(this.size.columns);
		let lines: StyledLine[];
		try {
			lines = await this.lines(component, columns);
		} catch (error) {
			entry.fail(error);
			return;
		}
		if (!this.open.has(view.customId)) return;
		if (columns === view.columns && JSON.stringify(lines) === JSON.stringify(view.lines)) return;
		view.columns = columns;
		view.lines = lines;
		this.hooks.publish("extension.custom.frame", { customId: view.customId, columns, lines });
	}

	/** Keys from the page, and/or its terminal's size (which every open component is drawn at). */
	input(customId: string, input: CustomInput): CustomOutcome {
		const entry = this.open.get(customId);
		if (!entry) return { ok: false, status: 404, code: "not_found", message: `no open custom component ${customId}` };
		if (input.data !== undefined && Buffer.byteLength(input.data) > CUSTOM_LIMITS.inputBytes)
			return {
				ok: false,
				status: 422,
				code: "input_too_large",
				message: `data: at most ${CUSTOM_LIMITS.inputBytes} bytes of input per request`,
			};
		if (input.columns !== undefined || input.rows !== undefined) {
			this.size = { columns: input.columns ?? this.size.columns, rows: input.rows ?? this.size.rows };
			for (const open of this.open.values()) open.pacer.request();
		}
		if (input.data !== undefined) {
			try {
				entry.component?.handleInput?.(input.data);
			} catch (error) {
				entry.fail(error);
				return { ok: true };
			}
			// pi's TUI draws again after every key it delivers.
			entry.pacer.request();
		}
		return { ok: true };
	}

	/** The page's Cancel: the call resolves with `undefined`. */
	cancel(customId: string): CustomOutcome {
		const entry = this.open.get(customId);
		if (!entry) return { ok: false, status: 404, code: "not_found", message: `no open custom component ${customId}` };
		entry.close("cancelled");
		return { ok: true };
	}

	dismissAll(): void {
		for (const entry of [...this.open.values()]) entry.close("session-closed");
	}
}
