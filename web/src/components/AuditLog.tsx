/**
 * The audit trail (`GET /api/pi/audit`): every decision pier recorded about what runs, newest first here.
 * Overall from the account menu ("Audit"), or one session's in its Extensions panel.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { AuditEntry, AuditView } from "../types.js";
import { visible } from "../visible.js";

const when = (time: string) =>
	new Date(time).toLocaleString([], {
		month: "short",
		day: "numeric",
		hour: "2-digit",
		minute: "2-digit",
		second: "2-digit",
	});

/** Who or what decided: the extension, else the rule, else the surface that stored it. */
const who = (e: AuditEntry) => e.extension ?? e.rule ?? e.source;

export function AuditLog({ sessionId }: { sessionId?: string }) {
	const [view, setView] = useState<AuditView | undefined>();
	const [error, setError] = useState<string | undefined>();
	const load = async () => {
		try {
			setView(await api.audit({ ...(sessionId ? { session: sessionId } : {}), limit: 200 }));
			setError(undefined);
		} catch (err) {
			setError(describeError(err));
		}
	};
	const root = useRef<HTMLDivElement>(null);
	useEffect(() => {
		void load();
		// Inside a folded panel (the session's Extensions), each opening shows the decisions made since.
		const panel = root.current?.closest("details");
		const onToggle = () => panel?.open && void load();
		panel?.addEventListener("toggle", onToggle);
		return () => panel?.removeEventListener("toggle", onToggle);
	}, [sessionId]);

	const entries = view ? [...view.entries].reverse() : [];
	return (
		<div class="audit-log" ref={root} data-testid={sessionId ? "session-audit" : "audit-log"}>
			<div class="audit-head">
				<span class="muted">
					{sessionId ? "Decisions in this session" : "Every decision about what runs"}
					{view && view.total > view.entries.length && ` (newest ${view.entries.length} of ${view.total})`}
				</span>
				<button type="button" data-testid="audit-refresh" onClick={() => void load()}>
					Refresh
				</button>
			</div>
			{view && entries.length === 0 && (
				<p class="muted" data-testid="audit-none">
					No decisions recorded{sessionId ? " in this session" : ""} yet. Also: <code>pier audit</code>.
				</p>
			)}
			<ul class="audit-list">
				{entries.map((e, i) => (
					<li key={`${e.time}-${i}`} data-testid="audit-entry" data-kind={e.kind} data-decision={e.decision}>
						<div class="audit-line">
							<span class={`badge audit-${e.decision.replace(/\s+/g, "-")}`}>{e.decision}</span>{" "}
							<strong>{e.kind}</strong> <span class="muted">{when(e.time)}</span>
						</div>
						<div class="audit-subject">
							<code>{visible(e.subject)}</code>
						</div>
						<div class="muted">
							{who(e) && <>by {visible(who(e)!)}</>}
							{e.rule && e.extension && <> · grant {e.rule}</>}
							{!sessionId && e.session && <> · session {e.session.slice(0, 8)}</>}
							{e.detail && <> · {visible(e.detail)}</>}
						</div>
					</li>
				))}
			</ul>
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</div>
	);
}
