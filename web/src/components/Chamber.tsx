/**
 * The signed-in app: header, session list (kept current by the daemon stream) and the open session. On narrow
 * screens the list and the session are two screens; the selection lives in `?s=` so a reload reopens it.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { EventStream, type StreamStatus } from "../stream.js";
import { onOpenSessionRequest } from "../habit-events.js";
import type { CommandTrigger, EventPayloads, SessionSummary } from "../types.js";
import { AccountMenu } from "./AccountMenu.js";
import { type SessionHeader, SessionScreen } from "./SessionScreen.js";
import { SessionList } from "./SessionList.js";
import { useToast } from "./Toasts.js";
import { visible } from "../visible.js";

function byNewest(a: SessionSummary, b: SessionSummary): number {
	return Date.parse(b.modifiedAt) - Date.parse(a.modifiedAt) || a.id.localeCompare(b.id);
}

function upsertSession(list: SessionSummary[], s: SessionSummary): SessionSummary[] {
	return [...list.filter((o) => o.id !== s.id), s].sort(byNewest);
}

function withWaiting(s: SessionSummary, waiting: number | undefined): SessionSummary {
	const { waiting: _old, ...rest } = s;
	return waiting ? { ...rest, waiting } : rest;
}

function selectedFromUrl(): string | undefined {
	return new URLSearchParams(window.location.search).get("s") ?? undefined;
}

interface Props {
	onSignOut: () => void;
	onUnauthorized: () => void;
}

export function Chamber({ onSignOut, onUnauthorized }: Props) {
	const [sessions, setSessions] = useState<SessionSummary[]>([]);
	const [loaded, setLoaded] = useState(false);
	const [selectedId, setSelectedId] = useState<string | undefined>(selectedFromUrl);
	const [daemonStatus, setDaemonStatus] = useState<StreamStatus>("connecting");
	const [header, setHeader] = useState<SessionHeader | undefined>();
	const [triggers, setTriggers] = useState<CommandTrigger[]>([]);
	const toast = useToast();
	const selectedRef = useRef(selectedId);
	selectedRef.current = selectedId;

	const select = useCallback((id: string | undefined) => {
		setSelectedId(id);
		const url = new URL(window.location.href);
		if (id) url.searchParams.set("s", id);
		else url.searchParams.delete("s");
		history.replaceState(null, "", url.pathname + url.search);
	}, []);

	// `/resume` in a session's composer picks another session.
	useEffect(() => onOpenSessionRequest(select), [select]);

	const refresh = useCallback(async () => {
		try {
			const r = await api.listSessions();
			setSessions([...r.sessions].sort(byNewest));
			setLoaded(true);
		} catch (err) {
			toast(`Could not list sessions: ${describeError(err)}`, "error");
		}
	}, [toast]);

	useEffect(() => {
		api.getUiSettings().then(
			(s) => setTriggers(s.triggers),
			() => {},
		);
	}, []);

	useEffect(() => {
		const onChanged = (p: EventPayloads["sessions.changed"]) => {
			if (p.reason === "deleted") {
				setSessions((list) => list.filter((s) => s.id !== p.id));
				if (p.id === selectedRef.current) {
					select(undefined);
					toast("The open session was deleted.", "warning");
				}
			} else if (p.session) {
				const s = p.session;
				setSessions((list) => upsertSession(list, s));
			} else void refresh();
		};
		const stream = new EventStream({
			dedupe: false,
			onEvent: (env) => {
				if (env.event === "sessions.changed") onChanged(env.payload);
			},
			onStatus: (status) => {
				setDaemonStatus(status);
				// Whatever changed while we were away is in the list, not in a replay we may not get.
				if (status === "live") void refresh();
			},
			onUnauthorized,
		});
		stream.start();
		return () => stream.close();
	}, [refresh, onUnauthorized, select, toast]);

	useEffect(() => {
		if (!header) return;
		const { id, streaming } = header;
		const waiting = header.waiting > 0 ? header.waiting : undefined;
		setSessions((list) =>
			list.some((s) => s.id === id && (s.streaming !== streaming || s.waiting !== waiting))
				? list.map((s) => (s.id === id ? withWaiting({ ...s, streaming, live: true }, waiting) : s))
				: list,
		);
	}, [header]);

	const title = visible(header?.title ?? "pier");
	// Sessions waiting for an answer, this one included: the title is what a user sees from another tab.
	const waitingCount = sessions.filter((s) => (s.waiting ?? 0) > 0).length;
	useEffect(() => {
		const base = header ? `${title} · pier` : "pier";
		document.title = waitingCount > 0 ? `(${waitingCount}) waiting · ${base}` : base;
	}, [title, header, waitingCount]);

	const saveTriggers = useCallback(async (next: CommandTrigger[]) => {
		const saved = await api.putUiSettings({ triggers: next });
		setTriggers(saved.triggers);
	}, []);

	const status = selectedId && header ? header.status : daemonStatus;
	const live = status === "live";

	return (
		<div class={`layout${selectedId ? " has-session" : ""}`}>
			<header class="topbar">
				{selectedId && (
					<button type="button" class="back" aria-label="Back to sessions" onClick={() => select(undefined)}>
						‹ Sessions
					</button>
				)}
				<h1 class="title" data-testid="session-title" title={title}>
					{title}
				</h1>
				<span
					class={`connection ${live ? "is-live" : "is-reconnecting"}`}
					data-testid="connection-state"
					role="status"
					title={live ? "Connected to the chamber" : "Connection lost; reconnecting"}
				>
					{live ? "live" : "reconnecting"}
				</span>
				<AccountMenu onSignOut={onSignOut} />
			</header>
			{/* One main landmark for list and session alike (a phone shows one of them); it adds no box to the grid. */}
			<main class="layout-body">
				<SessionList
					sessions={sessions}
					loaded={loaded}
					selectedId={selectedId}
					onSelect={select}
					onChanged={(s) => setSessions((list) => upsertSession(list, s))}
					onDeleted={(id) => {
						setSessions((list) => list.filter((s) => s.id !== id));
						if (id === selectedId) select(undefined);
					}}
				/>
				<div class="main">
					{selectedId ? (
						<SessionScreen
							key={selectedId}
							sessionId={selectedId}
							triggers={triggers}
							saveTriggers={saveTriggers}
							onHeader={setHeader}
							onUnauthorized={onUnauthorized}
							onReplaced={select}
						/>
					) : (
						<div class="placeholder muted">Pick a session, or start a new one.</div>
					)}
				</div>
			</main>
		</div>
	);
}
