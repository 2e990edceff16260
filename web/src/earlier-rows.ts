/**
 * Loading the page of rows before the first one a session's page holds (the transcript asks as the reader nears
 * the top). It reads the rows as they are when it runs, not as they were when the component was drawn, and says
 * whether the load brought anything: the transcript stops asking on its own after a load that did not.
 */
import { useRef } from "preact/hooks";
import { api, describeError } from "./api.js";
import type { SessionAction, SessionState } from "./state.js";

export function useEarlierRows(
	sessionId: string,
	state: SessionState,
	dispatch: (action: SessionAction) => void,
	toast: (message: string, level: "error") => void,
	pageSize: number,
): () => Promise<boolean> {
	const latest = useRef(state);
	latest.current = state;
	return async () => {
		const first = latest.current.view.rows[0];
		if (!first) return false;
		try {
			const page = await api.olderRows(sessionId, first.id, pageSize);
			dispatch({ type: "older", rows: page.rows, olderRows: page.olderRows });
			return page.rows.length > 0;
		} catch (err) {
			toast(`Could not load earlier messages: ${describeError(err)}`, "error");
			return false;
		}
	};
}
