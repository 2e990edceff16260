/**
 * pi's mode setup that its `main()` does and its SDK does not export: the shared theme and
 * the stdout guard of the headless modes (pi's own module, through src/pi-seams/output-guard.ts).
 */
import { initTheme, type SettingsManager } from "@earendil-works/pi-coding-agent";

/** pi's print, JSON and RPC modes: stdout is the answer or the protocol, nothing else. */
export { restoreStdout, takeOverStdout } from "../pi-seams/output-guard.js";

/**
 * pi initialises its theme in every mode, and extensions' `ctx.ui.theme`, `getMarkdownTheme()`
 * and `DynamicBorder` need it; only the terminal watches the theme file.
 */
export function initPiTheme(settings: SettingsManager, interactive: boolean): void {
	initTheme(settings.getTheme(), interactive);
}
