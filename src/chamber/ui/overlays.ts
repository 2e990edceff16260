/**
 * The chamber's overlay surface: the one open protocol overlay as session UI state, published whole as
 * `extension.overlay` on every change so each device shows the same panel (and one that joins late finds it in
 * the snapshot). The browser's keys and its editor's text come back through `POST /sessions/:id/overlay` and
 * reach the extension as `overlay_event`s (bridge/overlays.ts); the rows arrive sanitized already.
 */
import type { OverlayInputEvents, OverlaySurface } from "../../extensions/bridge/overlays.js";
import type { OpenOverlay, OverlayInput } from "../wire.js";
import type { AnswerOutcome, Publish } from "./session-ui.js";

interface Showing {
	state: OpenOverlay;
	events: OverlayInputEvents;
}

export class ChamberOverlay {
	private showing: Showing | undefined;

	constructor(private readonly publish: Publish) {}

	get view(): OpenOverlay | undefined {
		return this.showing?.state;
	}

	readonly surface: OverlaySurface = (view, events) => {
		this.end();
		const mine: Showing = { state: { ...view }, events };
		this.showing = mine;
		this.publish("extension.overlay", { overlay: mine.state });
		const change = (patch: Partial<OpenOverlay>, draft?: string) => {
			if (this.showing !== mine) return;
			mine.state = { ...mine.state, ...patch };
			if (patch.status === undefined && "status" in patch) delete mine.state.status;
			this.publish("extension.overlay", { overlay: mine.state, ...(draft !== undefined ? { draft } : {}) });
		};
		return {
			setRows: (rows) => change({ rows }),
			setStatus: (status) => change({ status }),
			restoreDraft: (text) => change({}, text),
			close: () => {
				if (this.showing === mine) this.end();
			},
		};
	};

	/** The browser's side: what the user did in the overlay named `input.id`. */
	input(input: OverlayInput): AnswerOutcome {
		const showing = this.showing;
		if (!showing || showing.state.id !== input.id) {
			return { ok: false, status: 404, code: "not_found", message: `overlay "${input.id}" is not open` };
		}
		switch (input.kind) {
			case "submit":
				if (!showing.state.input) {
					return { ok: false, status: 422, code: "invalid_answer", message: `overlay "${input.id}" has no editor` };
				}
				if (input.text.trim() !== "") showing.events.submit(input.text);
				return { ok: true };
			case "key":
				showing.events.key(input.action);
				return { ok: true };
			case "close":
				// As in the terminal: the extension hears `abort` first, so it can stop what the overlay was doing.
				showing.events.key("abort");
				this.end();
				return { ok: true };
		}
	}

	/** Takes the overlay off every screen and tells the session it is gone. */
	end(): void {
		const showing = this.showing;
		if (!showing) return;
		this.showing = undefined;
		this.publish("extension.overlay", { closed: showing.state.id });
		showing.events.closed();
	}
}
