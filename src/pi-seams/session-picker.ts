/** pi's `-r/--resume` session picker (`cli/session-picker.js`, not exported). */
import type { SessionInfo, SettingsManager } from "@earendil-works/pi-coding-agent";
import { moduleExports, piModule, type Seam } from "./seam.js";

const MODULE = "dist/cli/session-picker.js";

/** pi hands each loader its progress callback and an abort signal. */
export type SessionsLoader = (
	onProgress?: (loaded: number, total: number) => void,
	signal?: AbortSignal,
) => Promise<SessionInfo[]>;

interface SessionPicker {
	selectSession(current: SessionsLoader, all: SessionsLoader, settings: SettingsManager): Promise<string | null>;
}

/** The chosen session file, or null when the picker was closed. `settings` gives the picker its theme and keys. */
export async function pickSession(
	current: SessionsLoader,
	all: SessionsLoader,
	settings: SettingsManager,
): Promise<string | null> {
	const picker = await piModule<SessionPicker>(MODULE);
	return picker.selectSession(current, all, settings);
}

const id = { name: "session-picker", file: "src/pi-seams/session-picker.ts" };

export const seam: Seam = {
	...id,
	members: ["cli/session-picker.js (unexported): selectSession(current, all, settingsManager)"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { selectSession: 3 } }),
};
