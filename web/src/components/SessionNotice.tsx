/**
 * What the page says above the composer about the session's runtime: that an action is starting it, or that
 * another pier holds its file (who, since when) with the two ways on: a copy to work in here, or following the
 * original read-only as the other pier writes it.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { relativeTime } from "../format.js";
import { requestOpenSession } from "../habit-events.js";
import type { SessionSummary } from "../types.js";
import { visible } from "../visible.js";

interface NoticeProps {
	session: SessionSummary;
	following: boolean;
	onFollow: (following: boolean) => void;
}

export function SessionNotice({ session, following, onFollow }: NoticeProps) {
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>();
	const holder = session.heldBy;
	if (session.starting && !holder)
		return (
			<div class="session-notice" data-testid="session-starting" role="status">
				Starting the session and its extensions…
			</div>
		);
	if (!holder) return null;
	const fork = async () => {
		setBusy(true);
		setError(undefined);
		try {
			requestOpenSession((await api.copySession(session.id)).session.id);
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};
	return (
		<div class="session-notice held" data-testid="held-banner" role="status">
			<p>
				{following ? "Following read-only: " : ""}
				Open in <strong>{visible(holder.holder)}</strong> (pid {holder.pid} on {visible(holder.host)}) since{" "}
				<time dateTime={holder.since} title={new Date(holder.since).toLocaleString()}>
					{relativeTime(holder.since)}
				</time>
				. {following ? "New messages appear here as it writes them." : "Only one pier writes a session at a time."}
			</p>
			<div class="dialog-buttons">
				<button type="button" class="primary" data-testid="fork-copy" disabled={busy} onClick={() => void fork()}>
					Fork a copy
				</button>
				<button
					type="button"
					data-testid="follow-readonly"
					aria-pressed={following}
					onClick={() => onFollow(!following)}
				>
					{following ? "Stop following" : "Follow read-only"}
				</button>
			</div>
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</div>
	);
}
