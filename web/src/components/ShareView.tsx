/**
 * Issue 35, share links: the page a share link opens. It speaks only with the link (share-token.ts) and shows its
 * one session: a `view` link draws the transcript live and nothing that acts (no composer, no dialogs to answer,
 * no commands, terminal, files or changes); a `control` link gets the session screen for that session alone. When
 * the link is revoked or expires, the daemon ends the stream and the page says so.
 */
import { useCallback, useEffect, useReducer, useState } from "preact/hooks";
import type { ShareInfo } from "../../../src/chamber/share/share-wire.js";
import { api, describeError, setUnauthorizedHandler, shareApi } from "../api.js";
import { invalidateDrawings } from "../drawings.js";
import { useEarlierRows } from "../earlier-rows.js";
import { useSessionStream } from "../session-stream.js";
import { SessionIdContext } from "../session-context.js";
import { dropShareToken } from "../share-token.js";
import { initSessionState, reduceSession } from "../state.js";
import type { StreamStatus } from "../stream.js";
import type { SessionView } from "../types.js";
import { visible } from "../visible.js";
import { StatusBar, Widgets } from "./Extras.js";
import { markdownModule } from "./Markdown.js";
import { ROWS_PAGE, type SessionHeader, SessionScreen } from "./SessionScreen.js";
import { useToast } from "./Toasts.js";
import { Transcript } from "./Transcript.js";

const ENDED = "This share link has ended: it was revoked or it expired. Ask for a new one.";

export function ShareView() {
	const [info, setInfo] = useState<ShareInfo | undefined>();
	const [view, setView] = useState<SessionView | undefined>();
	const [ended, setEnded] = useState<string | undefined>();
	const [header, setHeader] = useState<SessionHeader | undefined>();
	const [status, setStatus] = useState<StreamStatus>("connecting");
	const end = useCallback(() => setEnded(ENDED), []);

	useEffect(() => {
		setUnauthorizedHandler(end);
		markdownModule.load().catch(() => {});
		shareApi
			.current()
			.then(async (current) => {
				setInfo(current);
				if (current.mode === "view") setView(await api.getSession(current.sessionId, ROWS_PAGE));
			})
			.catch((err) => setEnded(describeError(err)));
		return () => setUnauthorizedHandler(undefined);
	}, [end]);

	const title = visible(header?.title ?? "Shared session");
	useEffect(() => {
		document.title = `${title} · shared · pier`;
	}, [title]);

	const leave = () => {
		dropShareToken();
		window.location.assign("/");
	};

	if (ended) {
		return (
			<div class="placeholder share-ended" data-testid="share-ended" role="alert">
				<p>{ended}</p>
				<button type="button" onClick={leave}>
					Open the chamber instead
				</button>
			</div>
		);
	}
	if (!info) return <div class="placeholder muted">Opening the shared session…</div>;
	const live = (info.mode === "control" ? header?.status : status) === "live";
	const until = new Date(info.expiresAt).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
	return (
		<div class={`layout has-session share-layout share-${info.mode}`} data-testid="share-view">
			<header class="topbar">
				<h1 class="title" data-testid="session-title" title={title}>
					{title}
				</h1>
				<span class="share-badge" data-testid="share-badge" title={`This link works until ${until}`}>
					{info.mode === "view" ? "View only" : "Shared control"} · until {until}
				</span>
				<span class={`connection ${live ? "is-live" : "is-reconnecting"}`} data-testid="connection-state" role="status">
					{live ? "live" : "reconnecting"}
				</span>
			</header>
			<main class="layout-body">
				<div class="main">
					{info.mode === "control" ? (
						<SessionScreen
							sessionId={info.sessionId}
							triggers={[]}
							saveTriggers={async () => {}}
							onHeader={setHeader}
							onUnauthorized={end}
							onReplaced={() => end()}
							shared
						/>
					) : view ? (
						<ReadOnlySession initial={view} onHeader={setHeader} onStatus={setStatus} onEnded={end} />
					) : (
						<div class="placeholder muted">Opening the shared session…</div>
					)}
				</div>
			</main>
		</div>
	);
}

/** The transcript, followed live; nothing on it acts. */
function ReadOnlySession({
	initial,
	onHeader,
	onStatus,
	onEnded,
}: {
	initial: SessionView;
	onHeader: (h: SessionHeader) => void;
	onStatus: (s: StreamStatus) => void;
	onEnded: () => void;
}) {
	const [state, dispatch] = useReducer(reduceSession, initial, initSessionState);
	const toast = useToast();
	const sessionId = initial.session.id;
	const showEarlier = useEarlierRows(sessionId, state, dispatch, toast, ROWS_PAGE);
	const { view } = state;

	useSessionStream(
		sessionId,
		initial.seq,
		dispatch,
		{
			onEvent: (env) => {
				if (env.event === "transcript.drawn") invalidateDrawings(env.payload.ids);
			},
			onStatus,
			onUnauthorized: onEnded,
		},
		ROWS_PAGE,
	);

	const title = view.ui.title || view.session.name || view.session.firstMessage || "Shared session";
	useEffect(() => {
		onHeader({ id: sessionId, title, status: "live", streaming: view.streaming, waiting: view.ui.dialogs.length });
	}, [sessionId, title, view.streaming, view.ui.dialogs.length, onHeader]);

	const refuse = async () => toast("This link is view-only.", "warning");
	return (
		<div class="session">
			<div class="session-main">
				<SessionIdContext.Provider value={sessionId}>
					<Transcript state={state} onCommand={refuse} onReveal={() => {}} onShowEarlier={showEarlier} />
				</SessionIdContext.Provider>
				<div class="composer-area share-readonly-footer" data-testid="share-readonly">
					<Widgets widgets={view.ui.widgets} placement="aboveEditor" />
					{view.ui.dialogs.length > 0 && (
						<p class="muted" data-testid="share-waiting">
							The session is waiting for its owner to answer a question.
						</p>
					)}
					<div class="composer-meta">
						<span class="muted">{view.streaming ? "Working…" : "Read-only view"}</span>
						<StatusBar statuses={view.ui.statuses} />
					</div>
					<Widgets widgets={view.ui.widgets} placement="belowEditor" />
				</div>
			</div>
		</div>
	);
}
