/**
 * Every entry a pi session writes, seen as it is written: the chamber projects each onto its stream (transcript
 * rows, dock entries). The session manager's writers are hooked once per manager (src/pi-seams/session-appends.ts);
 * the hooks also hold in-process pi extensions to the chamber's entry depth and stamp an app surface's or a card's
 * entry with its extension.
 */
import type { SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";
import { hookSessionAppends } from "../pi-seams/session-appends.js";
import { depthMessage, valueTooDeep } from "../extensions/protocol/depth.js";
import { ENTRY_DEPTH } from "./transcript.js";

export interface EntryWatch {
	/** Whether `manager` still speaks for the chamber session (ctx.newSession… moves it to another). */
	current(manager: SessionManager): boolean;
	/** An entry was written to the current session. */
	written(entry: SessionEntry, manager: SessionManager): void;
	/** An entry was refused (too deep to write); the caller gets the same error. */
	refused(message: string): void;
	/** A `pichamber.app` or `pichamber.ui` entry's data, with the extension that appends it stamped in. */
	stampOwner(data: unknown): unknown;
}

/** Entries whose buttons run commands: an app surface's, a card's. */
const OWNED: readonly unknown[] = ["pichamber.app", "pichamber.ui"];

export function watchPersistence(manager: SessionManager, watch: EntryWatch): void {
	hookSessionAppends(manager, {
		before(method, args) {
			// Protocol frames are held to their depth limit at the channel; this holds in-process pi extensions
			// to the chamber's. pi would keep a deeper entry in memory and fail to write it (JSON.stringify
			// overflows), and the session's view and stream could not be served any more.
			if (args.some((arg) => valueTooDeep(arg, ENTRY_DEPTH))) {
				const message = `a session entry with ${depthMessage(ENTRY_DEPTH)} was refused (${method})`;
				watch.refused(message);
				throw new Error(message);
			}
			if (method === "appendCustomEntry" && OWNED.includes(args[0])) args[1] = watch.stampOwner(args[1]);
			return args;
		},
		after(id) {
			if (!watch.current(manager)) return;
			const entry = manager.getEntry(id) as SessionEntry | undefined;
			if (entry) watch.written(entry, manager);
		},
	});
}
