/** A fork's line above its transcript: which session it was forked from, with a link that opens that one. */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { relativeTime } from "../format.js";
import { requestOpenSession } from "../habit-events.js";
import type { SessionSummary } from "../types.js";
import { visible } from "../visible.js";

export function ForkedFrom({ session }: { session: SessionSummary }) {
	const parentId = session.forkedFrom;
	const [original, setOriginal] = useState<SessionSummary | null | undefined>();
	useEffect(() => {
		if (!parentId) return;
		let gone = false;
		setOriginal(undefined);
		// Archived originals too: a fork's link should still lead somewhere.
		Promise.all([api.listSessions(), api.listSessions({ archived: true })]).then(
			([active, archived]) =>
				!gone && setOriginal([...active.sessions, ...archived.sessions].find((s) => s.id === parentId) ?? null),
			() => !gone && setOriginal(null),
		);
		return () => {
			gone = true;
		};
	}, [parentId]);
	if (!parentId) return null;
	return (
		<div class="forked-from" data-testid="forked-from" data-parent-id={parentId}>
			<span aria-hidden="true">⑂</span> Forked <span data-testid="fork-age">{relativeTime(session.createdAt)}</span>{" "}
			from{" "}
			{original ? (
				<button
					type="button"
					class="link-button"
					data-testid="forked-from-link"
					onClick={() => requestOpenSession(parentId)}
				>
					{visible(original.name || original.firstMessage || "New session")}
				</button>
			) : original === null ? (
				<span class="muted">a session that is no longer listed</span>
			) : (
				<span class="muted">…</span>
			)}
		</div>
	);
}
