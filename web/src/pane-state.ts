/**
 * The side pane's place on a wide screen, remembered per session in localStorage: whether it is folded and how
 * wide it is. Bad or foreign values (another version, a hand edit) fall back to the defaults rather than break
 * the screen; storage that refuses writes (private mode, quota) only loses the memory.
 */

export interface PaneLayout {
	collapsed: boolean;
	/** CSS pixels. */
	width: number;
}

export const PANE_DEFAULT: PaneLayout = { collapsed: false, width: 380 };
export const PANE_MIN = 260;
/** The pane never takes more than this share of the window: the transcript owns the main column. */
export const PANE_MAX_SHARE = 0.5;

const KEY_PREFIX = "pier.pane.";

export function clampWidth(width: number, windowWidth: number): number {
	const max = Math.max(PANE_MIN, Math.floor(windowWidth * PANE_MAX_SHARE));
	return Math.round(Math.min(max, Math.max(PANE_MIN, width)));
}

export function loadPane(sessionId: string): PaneLayout {
	try {
		const raw = JSON.parse(localStorage.getItem(KEY_PREFIX + sessionId) ?? "null") as Partial<PaneLayout> | null;
		if (!raw || typeof raw !== "object") return PANE_DEFAULT;
		return {
			collapsed: raw.collapsed === true,
			width: typeof raw.width === "number" && Number.isFinite(raw.width) ? raw.width : PANE_DEFAULT.width,
		};
	} catch {
		return PANE_DEFAULT;
	}
}

export function savePane(sessionId: string, layout: PaneLayout): void {
	try {
		localStorage.setItem(KEY_PREFIX + sessionId, JSON.stringify(layout));
	} catch {
		// Storage full or refused: the layout still applies for this visit.
	}
}
