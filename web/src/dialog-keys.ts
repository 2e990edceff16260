/**
 * The keyboard of a modal extension dialog (DialogDock.tsx): where the focus starts, Tab kept inside, the arrow
 * keys over a select's options, and the grace period in which Enter answers nothing. Plain DOM, no component.
 */

/** Enter is ignored this long after a dialog appears: a keystroke already on its way was meant for the composer. */
export const ENTER_GRACE_MS = 400;

const FOCUSABLE =
	'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** Where the keyboard starts: the confirm's default (Yes, as in pi's terminal), else the first field or option. */
export function initialFocus(root: HTMLElement, method: string): HTMLElement | null {
	if (method === "confirm") return root.querySelector<HTMLElement>('[data-testid="dialog-confirm-yes"]');
	return root.querySelector<HTMLElement>(
		'[data-testid="dialog-input"], [data-testid="form-field"], [data-testid="dialog-option"]',
	);
}

/** Tab and Shift+Tab cycle inside the dialog: the page behind it waits for the answer. */
export function trapTab(e: KeyboardEvent, root: HTMLElement): void {
	const items = [...root.querySelectorAll<HTMLElement>(FOCUSABLE)];
	const firstItem = items[0];
	const lastItem = items.at(-1);
	if (!firstItem || !lastItem) return;
	const active = document.activeElement;
	if (e.shiftKey && (active === firstItem || !root.contains(active))) {
		e.preventDefault();
		lastItem.focus();
	} else if (!e.shiftKey && (active === lastItem || !root.contains(active))) {
		e.preventDefault();
		firstItem.focus();
	}
}

/** ↑/↓ (and ←/→) walk a select's options as in pi's selector; Enter picks the focused one (it is a button). */
export function walkOptions(e: KeyboardEvent, root: HTMLElement): void {
	const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[e.key];
	const buttons = [...root.querySelectorAll<HTMLButtonElement>('[data-testid="dialog-option"]')];
	const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
	if (!step || at < 0) return;
	e.preventDefault();
	buttons[(at + step + buttons.length) % buttons.length]?.focus();
}
