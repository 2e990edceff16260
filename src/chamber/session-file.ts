/**
 * A session's view straight from its pi JSONL file, without starting the session: what a browser needs to
 * show a session it opens (the transcript, panels and apps), at the cost of one parse. Starting the session
 * (its runtime and extensions) waits until something needs it: the event stream or an action.
 */
import { readFileSync } from "node:fs";
import type { SessionEntry, SessionHeader } from "@earendil-works/pi-coding-agent";
import { rowsOf, summaryOf } from "./transcript.js";
import { usageOf } from "./usage.js";
import { SessionUi } from "./ui/session-ui.js";
import type { SessionView } from "./wire.js";

/** pi's current session format; older files go through pi's own migration (by opening the session). */
const CURRENT_VERSION = 3;

export interface SessionFile {
	header: SessionHeader;
	entries: SessionEntry[];
}

/** The file's header and entries, or undefined when it is not a current-version pi session file. */
export function readSessionFile(file: string): SessionFile | undefined {
	const lines = readFileSync(file, "utf8").split("\n");
	let header: SessionHeader | undefined;
	const entries: SessionEntry[] = [];
	for (const line of lines) {
		if (!line.trim()) continue;
		let parsed: { type?: string };
		try {
			parsed = JSON.parse(line) as { type?: string };
		} catch {
			continue; // pi skips malformed lines too
		}
		if (!header) {
			if (parsed.type !== "session") return undefined;
			header = parsed as SessionHeader;
			if (header.version !== CURRENT_VERSION) return undefined;
			continue;
		}
		entries.push(parsed as SessionEntry);
	}
	return header ? { header, entries } : undefined;
}

/** The path from the root to the last entry (pi's leaf after opening a file). */
function branchOf(entries: readonly SessionEntry[]): SessionEntry[] {
	const byId = new Map(entries.map((e) => [e.id, e]));
	const path: SessionEntry[] = [];
	let current = entries.at(-1);
	while (current) {
		path.push(current);
		current = current.parentId ? byId.get(current.parentId) : undefined;
	}
	return path.reverse();
}

export function viewFromFile({ header, entries }: SessionFile): SessionView {
	const ui = new SessionUi(() => {});
	let name: string | undefined;
	let model: string | undefined;
	let thinkingLevel = "off";
	for (const entry of entries) {
		if (entry.type === "custom") ui.applyEntry(entry.customType, entry.data, false);
		else if (entry.type === "session_info") name = entry.name;
		else if (entry.type === "model_change") model = `${entry.provider}/${entry.modelId}`;
		else if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
	}
	const session = summaryOf(header, entries, { ...(name ? { name } : {}), live: false, streaming: false });
	return {
		session,
		rows: rowsOf(branchOf(entries)),
		ui: ui.view(),
		// Commands are known once the session runs; the stream's snapshot brings them.
		commands: [],
		// The context window is the model's, known once the session runs.
		usage: usageOf(entries),
		queue: { steering: [], followUp: [] },
		...(model ? { model } : {}),
		thinkingLevel,
		streaming: false,
		seq: 0,
	};
}
