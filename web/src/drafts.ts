/**
 * The message box's draft, per session, in this browser's localStorage: a reload, a reconnect or a daemon
 * restart never loses what the user typed. A snapshot's `ui.editorText` is the daemon's mirror of some draft
 * and may be stale, so it only fills an empty box (composer).
 */
import { useEffect, useRef, useState } from "preact/hooks";

const PREFIX = "pier.draft.";

export function loadDraft(sessionId: string): string | undefined {
	try {
		return localStorage.getItem(PREFIX + sessionId) ?? undefined;
	} catch {
		return undefined;
	}
}

export function saveDraft(sessionId: string, text: string): void {
	try {
		if (text) localStorage.setItem(PREFIX + sessionId, text);
		else localStorage.removeItem(PREFIX + sessionId);
	} catch {
		// Storage full or disabled: the draft lives as long as the page.
	}
}

/**
 * The composer's text: restored from this browser's draft, mirrored to the daemon (debounced) so extensions
 * reading `ctx.ui.getEditorText()` see it, replaced by an extension's `setEditorText` (a new `editorRevision`),
 * and filled by a snapshot's text only while the box is empty (a new `snapshotRevision`).
 */
export function useDraft(
	sessionId: string,
	editorText: string,
	editorRevision: number,
	snapshotRevision: number,
	mirror: (text: string) => Promise<{ live?: false }>,
): [string, (next: string | ((previous: string) => string)) => void] {
	const [text, setText] = useState(() => loadDraft(sessionId) ?? editorText);
	const synced = useRef<string | undefined>(editorText);
	const seenEditor = useRef(editorRevision);
	const seenSnapshot = useRef(snapshotRevision);
	useEffect(() => {
		if (seenEditor.current === editorRevision) return;
		seenEditor.current = editorRevision;
		synced.current = editorText;
		setText(editorText);
	}, [editorRevision, editorText]);
	useEffect(() => {
		if (seenSnapshot.current === snapshotRevision) return;
		seenSnapshot.current = snapshotRevision;
		setText((typed) => {
			if (typed !== "") return typed;
			synced.current = editorText;
			return editorText;
		});
	}, [snapshotRevision, editorText]);
	useEffect(() => saveDraft(sessionId, text), [sessionId, text]);
	useEffect(() => {
		if (text === synced.current) return;
		const timer = setTimeout(() => {
			synced.current = text;
			mirror(text).then(
				// Not running: mirrored again once it runs (`mirror` changes with the session's state).
				(r) => {
					if (r.live === false) synced.current = undefined;
				},
				() => {
					// The mirror is best effort; the next keystroke retries.
					synced.current = undefined;
				},
			);
		}, EDITOR_SYNC_MS);
		return () => clearTimeout(timer);
	}, [text, mirror]);
	return [text, setText];
}

const EDITOR_SYNC_MS = 400;
