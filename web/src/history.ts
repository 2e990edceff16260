/**
 * ↑/↓ in the message box, as pi's editor walks its history: ↑ in an empty box recalls the last prompt, and while
 * browsing ↑ on the first line goes older, ↓ on the last line newer, and past the newest the box is empty
 * again. The history is the session's
 * own user messages plus what was sent from this page (commands and `!bash` leave no user message).
 */
import { useRef } from "preact/hooks";
import type { TranscriptRow } from "./types.js";

const LIMIT = 100;
/**
 * Sent from this browser, per session, kept in localStorage: commands (`/name`) and `!bash` leave no user row, so
 * without this ↑ would skip them after a reload.
 */
const KEY = "pier.sent.";

function sentOf(sessionId: string): string[] {
	try {
		const list = JSON.parse(localStorage.getItem(KEY + sessionId) ?? "[]") as unknown;
		return Array.isArray(list) ? list.filter((t): t is string => typeof t === "string") : [];
	} catch {
		return [];
	}
}

export function rememberSent(sessionId: string, text: string): void {
	const list = sentOf(sessionId);
	if (list.at(-1) !== text) list.push(text);
	try {
		localStorage.setItem(KEY + sessionId, JSON.stringify(list.slice(-LIMIT)));
	} catch {
		// Storage full or disabled: the history is the session's rows.
	}
}

function historyOf(sessionId: string, rows: readonly TranscriptRow[]): string[] {
	const fromRows = rows.flatMap((r) => (r.kind === "user" && r.text ? [r.text] : []));
	const own = sentOf(sessionId);
	// Sent prompts also come back as user rows: keep one of each, in the order they were made.
	const all = [...fromRows.filter((t) => !own.includes(t)), ...own];
	return all.filter((t, i) => t !== all[i - 1]).slice(-LIMIT);
}

export function usePromptHistory(sessionId: string, rows: readonly TranscriptRow[]) {
	const index = useRef<number | undefined>(undefined);
	// Read at each key press, not memoized on the rows: a send's answer may land after its row did.
	const current = useRef({ sessionId, rows });
	current.current = { sessionId, rows };

	return {
		reset: () => {
			index.current = undefined;
		},
		/** ↑/↓ walk the history now: a recalled `/command` must not hand the keys to its suggestion list. */
		browsing: () => index.current !== undefined,
		/** The text to show for ↑ (older) or ↓ (newer), or undefined to let the key move the caret. */
		step(direction: "older" | "newer", text: string, caret: number): string | undefined {
			const entries = historyOf(current.current.sessionId, current.current.rows);
			const onFirstLine = !text.slice(0, caret).includes("\n");
			const onLastLine = !text.slice(caret).includes("\n");
			if (direction === "older") {
				if (entries.length === 0) return undefined;
				if (index.current === undefined) {
					if (text !== "") return undefined;
					index.current = entries.length;
				} else if (!onFirstLine) return undefined;
				if (index.current === 0) return undefined;
				index.current -= 1;
				return entries[index.current];
			}
			if (index.current === undefined || !onLastLine) return undefined;
			index.current += 1;
			if (index.current >= entries.length) {
				index.current = undefined;
				return "";
			}
			return entries[index.current];
		},
	};
}
