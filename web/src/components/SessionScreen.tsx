/**
 * An open session: fetch its view, follow its event stream from the view's `seq`, and lay out the reduced state:
 * the transcript and the composer own the main column, live panels and apps sit in the side pane (a drawer on a
 * phone), and a pending dialog is a modal over both.
 */
import { invalidateDrawings } from "../drawings.js";
import { useCallback, useEffect, useReducer, useRef, useState } from "preact/hooks";
import { ApiError, api, describeError } from "../api.js";
import { comboFromEvent, hasCommandModifier, isBuiltinShortcut, isEditableTarget } from "../shortcuts.js";
import { initSessionState, reduceSession } from "../state.js";
import { useEarlierRows } from "../earlier-rows.js";
import { useSessionStream } from "../session-stream.js";
import type { StreamStatus } from "../stream.js";
import type { CommandTrigger, SessionView } from "../types.js";
import type { RunCardCommand, RunCommand } from "./ActionButton.js";
import type { RunAppCommand } from "./AppFrame.js";
import { Composer } from "./Composer.js";
import { ForkedFrom } from "./ForkedFrom.js";
import { SessionIdContext } from "../session-context.js";
import { markdownModule } from "./Markdown.js";
import { DialogDock } from "./DialogDock.js";
import { CustomLayer } from "./CustomOverlay.js";
import { OverlayLayer } from "./Overlay.js";
import { StatusBar, Widgets } from "./Extras.js";
import { ModelPicker, ThinkingPicker } from "./Pickers.js";
import { ChangesPanel } from "./ChangesPanel.js";
import { ExtensionsPanel } from "./ExtensionsPanel.js";
import { FilesPanel } from "./FilesPanel.js";
import { TerminalPanel } from "./TerminalPanel.js";
import { McpPanel } from "./McpPanel.js";
import { SharePanel } from "./SharePanel.js";
import { WorktreePanel } from "./WorktreePanel.js";
import { SessionNotice } from "./SessionNotice.js";
import { type Reveal, SidePane } from "./SidePane.js";
import { useToast } from "./Toasts.js";
import { TriggerBar, TriggerSettings, newTriggerId } from "./Triggers.js";
import { Transcript } from "./Transcript.js";
import { UsageFooter } from "./UsageFooter.js";

export interface SessionHeader {
	id: string;
	title: string;
	status: StreamStatus;
	/** The open session knows this first-hand; the list's copy may lag. */
	streaming: boolean;
	/** Dialogs waiting for the user's answer in this session. */
	waiting: number;
}

interface ScreenProps {
	sessionId: string;
	triggers: CommandTrigger[];
	saveTriggers: (triggers: CommandTrigger[]) => Promise<void>;
	onHeader: (header: SessionHeader | undefined) => void;
	onUnauthorized: () => void;
	/** An extension moved the session to another pi session: open that one. */
	onReplaced: (id: string) => void;
	/** Opened through a control share link (ShareView.tsx): no terminal, no triggers, no sharing onwards. */
	shared?: boolean;
}

/** Rows loaded at first and per "show earlier" page: big sessions stay light on a phone. */
export const ROWS_PAGE = 300;

export function SessionScreen(props: ScreenProps) {
	const { sessionId, onHeader } = props;
	const [view, setView] = useState<SessionView | undefined>();
	const [error, setError] = useState<string | undefined>();

	useEffect(() => {
		let live = true;
		setView(undefined);
		setError(undefined);
		// The transcript's renderer is fetched alongside the view rather than after it.
		markdownModule.load().catch(() => {});
		api.getSession(sessionId, ROWS_PAGE).then(
			(v) => live && setView(v),
			(err) => {
				if (!live) return;
				setError(
					err instanceof ApiError && err.code === "not_found"
						? "This session no longer exists."
						: `Could not open the session: ${describeError(err)}`,
				);
			},
		);
		return () => {
			live = false;
			onHeader(undefined);
		};
	}, [sessionId, onHeader]);

	if (error) return <div class="placeholder inline-error">{error}</div>;
	if (!view) return <div class="placeholder muted">Opening session…</div>;
	return <LiveSession key={sessionId} initial={view} {...props} />;
}

function LiveSession({
	initial,
	triggers,
	saveTriggers,
	onHeader,
	onUnauthorized,
	onReplaced,
	shared,
}: ScreenProps & { initial: SessionView }) {
	const [state, dispatch] = useReducer(reduceSession, initial, initSessionState);
	const [status, setStatus] = useState<StreamStatus>("connecting");
	const [settings, setSettings] = useState<{ editId?: string } | undefined>();
	/** "Follow read-only" on a session another pier holds: no composer while it holds it. */
	const [following, setFollowing] = useState(false);
	const composerRef = useRef<HTMLTextAreaElement | null>(null);
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
				if (env.event === "extension.notify") toast(env.payload.message, env.payload.level);
				if (env.event === "session.replaced") onReplaced(env.payload.id);
				if (env.event === "transcript.drawn") invalidateDrawings(env.payload.ids);
			},
			onStatus: setStatus,
			onUnauthorized,
		},
		ROWS_PAGE,
	);

	const firstUser = view.rows.find((r) => r.kind === "user");
	const title =
		view.ui.title ||
		view.session.name ||
		view.session.firstMessage ||
		(firstUser?.kind === "user" ? firstUser.text.slice(0, 120) : "") ||
		"New session";
	const waiting = view.ui.dialogs.length;
	useEffect(() => {
		onHeader({ id: sessionId, title, status, streaming: view.streaming, waiting });
	}, [sessionId, title, status, view.streaming, waiting, onHeader]);

	const [reveal, setReveal] = useState<Reveal | undefined>();
	const showInPane = useCallback(
		(kind: Reveal["kind"], id: string) => setReveal((prev) => ({ kind, id, n: (prev?.n ?? 0) + 1 })),
		[],
	);
	const focusComposer = useCallback(() => composerRef.current?.focus(), []);

	const run: RunCommand = useCallback(
		async (command, args) => {
			try {
				await api.command(sessionId, command, args);
			} catch (err) {
				toast(describeError(err), "error");
			}
		},
		[sessionId, toast],
	);

	const runFromCard: RunCardCommand = useCallback(
		async (place, command, args) => {
			try {
				await api.cardCommand(sessionId, place, command, args);
			} catch (err) {
				toast(describeError(err), "error");
			}
		},
		[sessionId, toast],
	);

	const runFromApp: RunAppCommand = useCallback(
		async (appId, command, args) => {
			try {
				await api.appCommand(sessionId, appId, command, args);
			} catch (err) {
				toast(describeError(err), "error");
			}
		},
		[sessionId, toast],
	);

	// Built-ins are handled by the elements that own them and are never matched here; triggers come after.
	useEffect(() => {
		const onKey = (e: KeyboardEvent) => {
			const combo = comboFromEvent(e);
			if (!combo) return;
			if (isBuiltinShortcut(combo)) {
				if (combo === "Ctrl+K" && !e.defaultPrevented) {
					e.preventDefault();
					composerRef.current?.focus();
				}
				return;
			}
			if (e.defaultPrevented || e.repeat) return;
			if (isEditableTarget(e.target) && !hasCommandModifier(combo)) return;
			const trigger = triggers.find((t) => t.shortcut === combo);
			if (!trigger) return;
			e.preventDefault();
			void run(trigger.command, trigger.args);
		};
		window.addEventListener("keydown", onKey);
		return () => window.removeEventListener("keydown", onKey);
	}, [triggers, run]);

	const pin = async (command: string) => {
		const existing = triggers.find((t) => t.command === command && !t.args);
		if (existing) {
			setSettings({ editId: existing.id });
			return;
		}
		const trigger = { id: newTriggerId(), command };
		try {
			await saveTriggers([...triggers, trigger]);
			setSettings({ editId: trigger.id });
		} catch (err) {
			toast(describeError(err), "error");
		}
	};

	return (
		<div class="session">
			<div class="session-main">
				<ForkedFrom session={view.session} />
				<SessionIdContext.Provider value={sessionId}>
					<Transcript state={state} onCommand={runFromCard} onReveal={showInPane} onShowEarlier={showEarlier} />
				</SessionIdContext.Provider>
				<div class="composer-area">
					<Widgets widgets={view.ui.widgets} placement="aboveEditor" />
					{settings && (
						<TriggerSettings
							key={settings.editId ?? "settings"}
							triggers={triggers}
							commands={view.commands}
							editId={settings.editId}
							onSave={saveTriggers}
							onClose={() => setSettings(undefined)}
						/>
					)}
					{!shared && (
						<TriggerBar
							triggers={triggers}
							onFire={(t) => void run(t.command, t.args)}
							onSettings={() => setSettings((s) => (s ? undefined : {}))}
						/>
					)}
					<SessionNotice session={view.session} following={following} onFollow={setFollowing} />
					{!(following && view.session.heldBy) && (
						<Composer
							sessionId={sessionId}
							view={view}
							streaming={view.streaming}
							commands={view.commands}
							editorText={view.ui.editorText ?? ""}
							editorRevision={state.editorRevision}
							snapshotRevision={state.snapshotRevision}
							{...(view.session.heldBy ? { heldBy: view.session.heldBy } : {})}
							onPin={(c) => void pin(c)}
							inputRef={composerRef}
						/>
					)}
					<div class="composer-meta">
						<ModelPicker
							sessionId={sessionId}
							model={view.model}
							onChanged={(model) => dispatch({ type: "model", model })}
						/>
						<ThinkingPicker
							sessionId={sessionId}
							model={view.model}
							level={view.thinkingLevel}
							onChanged={(thinkingLevel) => dispatch({ type: "model", thinkingLevel })}
						/>
						<StatusBar statuses={view.ui.statuses} />
						<UsageFooter usage={view.usage} />
						<WorktreePanel sessionId={sessionId} />
						<McpPanel sessionId={sessionId} />
						<ExtensionsPanel sessionId={sessionId} />
						<ChangesPanel sessionId={sessionId} streaming={view.streaming} />
						<FilesPanel sessionId={sessionId} />
						{!shared && <TerminalPanel key={sessionId} sessionId={sessionId} />}
						{!shared && <SharePanel sessionId={sessionId} />}
					</div>
					<Widgets widgets={view.ui.widgets} placement="belowEditor" />
				</div>
			</div>
			<SidePane
				sessionId={sessionId}
				apps={view.ui.apps}
				panels={view.ui.panels}
				onCommand={runFromCard}
				onAppCommand={runFromApp}
				reveal={reveal}
			/>
			<OverlayLayer
				sessionId={sessionId}
				overlay={view.ui.overlay}
				returnedDraft={state.overlayDraft}
				onDone={focusComposer}
			/>
			<DialogDock sessionId={sessionId} dialogs={view.ui.dialogs} onDone={focusComposer} />
			<CustomLayer sessionId={sessionId} customs={view.ui.customs} onDone={focusComposer} />
		</div>
	);
}
