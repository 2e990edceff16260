/**
 * pi's mode setup that its `main()` does and its SDK does not export: the shared theme and
 * the stdout guard of the headless modes.
 */
import { initTheme, type SettingsManager } from "@earendil-works/pi-coding-agent";
import { piModule } from "../agent/pi-internals.js";

interface OutputGuard {
	takeOverStdout(): void;
	restoreStdout(): void;
}

let guard: Promise<OutputGuard> | undefined;

/**
 * pi's own output guard module, not a copy: print and RPC mode write their output through its
 * raw stdout, so only the same module instance (the same URL) keeps their output on stdout while
 * everything else written there (an extension's escape sequence) goes to stderr.
 */
function outputGuard(): Promise<OutputGuard> {
	guard ??= piModule<OutputGuard>("./core/output-guard.js");
	return guard;
}

/** pi's print, JSON and RPC modes: stdout is the answer or the protocol, nothing else. */
export async function takeOverStdout(): Promise<void> {
	(await outputGuard()).takeOverStdout();
}

export async function restoreStdout(): Promise<void> {
	(await outputGuard()).restoreStdout();
}

/**
 * pi initialises its theme in every mode, and extensions' `ctx.ui.theme`, `getMarkdownTheme()`
 * and `DynamicBorder` need it; only the terminal watches the theme file.
 */
export function initPiTheme(settings: SettingsManager, interactive: boolean): void {
	initTheme(settings.getTheme(), interactive);
}
