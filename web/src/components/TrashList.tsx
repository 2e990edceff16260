/** The Trash view: deleted sessions still in the daemon's trash, each with Restore until its file goes for good. */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { basename, relativeTime } from "../format.js";
import type { SessionSummary, TrashedSession } from "../types.js";
import { visible } from "../visible.js";
import { useToast } from "./Toasts.js";

export function TrashList({ query, onRestored }: { query: string; onRestored: (s: SessionSummary) => void }) {
	const [trash, setTrash] = useState<TrashedSession[] | undefined>();
	const toast = useToast();
	useEffect(() => {
		api.listTrash().then(
			(r) => setTrash(r.sessions),
			(err) => toast(describeError(err), "error"),
		);
	}, [toast]);
	const q = query.trim().toLowerCase();
	const shown = (trash ?? []).filter(
		(s) => !q || [s.name, s.firstMessage, s.cwd].some((t) => t?.toLowerCase().includes(q)),
	);
	const restore = async (id: string) => {
		try {
			const r = await api.restoreSession(id);
			setTrash((list) => list?.filter((s) => s.id !== id));
			onRestored(r.session);
			toast(`Restored “${visible(r.session.name || r.session.firstMessage || "session")}”.`);
		} catch (err) {
			toast(describeError(err), "error");
		}
	};
	return (
		<ul class="session-list" data-testid="trash-list">
			{trash && shown.length === 0 && (
				<li class="muted empty">{q ? "Nothing in the trash matches." : "The trash is empty."}</li>
			)}
			{shown.map((s) => (
				<li key={s.id} class="session-item trash-item" data-testid="trash-item" data-session-id={s.id}>
					<span class="session-open">
						<span class="session-name">{visible(s.name || s.firstMessage || "Session")}</span>
						<span class="session-meta">
							<span title={s.cwd}>{basename(s.cwd)}</span>
							<span title={new Date(s.deletedAt).toLocaleString()}> · deleted {relativeTime(s.deletedAt)}</span>
							<span title={new Date(s.purgeAt).toLocaleString()}>
								{" "}
								· kept until {new Date(s.purgeAt).toLocaleDateString()}
							</span>
						</span>
					</span>
					<button type="button" class="trash-restore" data-testid="restore-session" onClick={() => void restore(s.id)}>
						Restore
					</button>
				</li>
			))}
		</ul>
	);
}
