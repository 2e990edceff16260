/**
 * pi's stdout guard for its headless modes (`core/output-guard.js`, not exported). It has to be pi's own module
 * instance, not a copy: print and RPC mode write their output through its saved raw stdout, so only the same
 * module (the same URL) keeps their output on stdout while everything else written there goes to stderr.
 */
import { moduleExports, piModule, type Seam } from "./seam.js";

const MODULE = "dist/core/output-guard.js";

interface OutputGuard {
	takeOverStdout(): void;
	restoreStdout(): void;
}

let guard: Promise<OutputGuard> | undefined;

function outputGuard(): Promise<OutputGuard> {
	guard ??= piModule<OutputGuard>(MODULE);
	return guard;
}

/** From now on what anything writes to process.stdout goes to stderr; pi's modes still write to stdout. */
export async function takeOverStdout(): Promise<void> {
	(await outputGuard()).takeOverStdout();
}

export async function restoreStdout(): Promise<void> {
	(await outputGuard()).restoreStdout();
}

const id = { name: "output-guard", file: "src/pi-seams/output-guard.ts" };

export const seam: Seam = {
	...id,
	members: ["core/output-guard.js (unexported): takeOverStdout(), restoreStdout()"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { takeOverStdout: 0, restoreStdout: 0 } }),
};
