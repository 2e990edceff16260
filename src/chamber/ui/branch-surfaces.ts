import type { SessionManager } from "@earendil-works/pi-coding-agent";
import type { SessionUi } from "./session-ui.js";

/**
 * Panels and apps as the entries on the current branch left them: at open, and after a move in the tree, so the
 * side pane shows what the branch the user is on shows (a branch left behind keeps its own in the file).
 */
export function surfacesFromBranch(ui: SessionUi, manager: Pick<SessionManager, "getBranch">): void {
	ui.resetEntries();
	for (const entry of manager.getBranch()) {
		if (entry.type === "custom") ui.applyEntry(entry.customType, entry.data, false);
	}
}
