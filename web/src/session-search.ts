/**
 * The list's search over every message's text: the daemon answers from its session index (session-search.ts
 * there), asked once the typing pauses; the list filters by name, first message and project meanwhile.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.js";

const PAUSE_MS = 200;

/** The ids of the sessions whose messages contain `query` (undefined for no query, or before the answer). */
export function useMessageSearch(query: string, archived: boolean): Set<string> | undefined {
	const [found, setFound] = useState<{ query: string; ids: Set<string> } | undefined>();
	const q = query.trim();
	useEffect(() => {
		if (!q) return;
		let live = true;
		const timer = setTimeout(() => {
			api.listSessions({ q, archived }).then(
				(r) => live && setFound({ query: q, ids: new Set(r.sessions.map((s) => s.id)) }),
				() => {},
			);
		}, PAUSE_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [q, archived]);
	return q && found?.query === q ? found.ids : undefined;
}
