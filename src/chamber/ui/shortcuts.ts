/** Kept apart from wire.ts so the web app can import it without bundling TypeBox. */

/**
 * Keys the web app handles itself. A trigger bound to one of them would shadow a core action, so the daemon
 * refuses it (and the app matches built-ins first anyway).
 */
export const BUILTIN_SHORTCUTS: readonly string[] = [
	"Enter",
	"Shift+Enter",
	"Escape",
	"Ctrl+C",
	"Ctrl+L",
	"Ctrl+K",
	"Ctrl+Enter",
	"Alt+Enter",
	"Tab",
	"Shift+Tab",
	"ArrowUp",
	"ArrowDown",
];
