/**
 * A session as the browser sees it: the server's SessionView plus what only exists while streaming (drafts,
 * running tools). `reduceSession` is pure so a replayed or resynced stream always lands on the same state:
 * rows are keyed by id, events at or below `lastSeq` are ignored and a snapshot replaces everything.
 */
import type { AnyEnvelope, NormalizedCard, SessionView, TranscriptRow, UiState } from "./types.js";

export interface Draft {
	draftId: string;
	text: string;
	thinking: string;
	ended: boolean;
}

export interface LiveTool {
	toolCallId: string;
	toolName: string;
	args: unknown;
	output: string;
	ended: boolean;
	isError: boolean;
}

/** A user bash command (`!cmd`) running or done but not yet recorded as a row. */
export interface LiveBash {
	bashId: string;
	command: string;
	excludeFromContext: boolean;
	output: string;
	ended: boolean;
	exitCode?: number;
}

export interface SessionState {
	view: SessionView;
	lastSeq: number;
	drafts: Draft[];
	tools: LiveTool[];
	bash: LiveBash[];
	/** Bumped when an extension replaces the composer text, so the composer adopts it even if it is unchanged. */
	editorRevision: number;
	/** Bumped by each snapshot: its editor text only fills an empty box (a typed draft is never replaced). */
	snapshotRevision: number;
	/** A failed overlay submit's text, handed back to the overlay's editor (`n` tells one return from the next). */
	overlayDraft?: { text: string; n: number };
}

export type SessionAction =
	| { type: "event"; env: AnyEnvelope }
	/** Events that arrived within one animation frame, in order. */
	| { type: "events"; envs: AnyEnvelope[] }
	/** The answer of a PUT that may or may not be echoed as an event. */
	| { type: "model"; model?: string; thinkingLevel?: string }
	| { type: "reset"; view: SessionView }
	/** A page of earlier rows, fetched when the user scrolls back. */
	| { type: "older"; rows: TranscriptRow[]; olderRows: number };

export function initSessionState(view: SessionView): SessionState {
	return { view, lastSeq: view.seq, drafts: [], tools: [], bash: [], editorRevision: 0, snapshotRevision: 0 };
}

export function reduceSession(state: SessionState, action: SessionAction): SessionState {
	switch (action.type) {
		case "reset":
			return snapshot(state, action.view);
		case "model": {
			const view = { ...state.view };
			if (action.model !== undefined) view.model = action.model;
			if (action.thinkingLevel !== undefined) view.thinkingLevel = action.thinkingLevel;
			return { ...state, view };
		}
		case "event":
			return applyEvent(state, action.env);
		case "events":
			return action.envs.reduce(applyEvent, state);
		case "older": {
			const known = new Set(state.view.rows.map((r) => r.id));
			const rows = [...action.rows.filter((r) => !known.has(r.id)), ...state.view.rows];
			return { ...state, view: { ...state.view, rows, olderRows: action.olderRows } };
		}
	}
}

export function applyEvent(state: SessionState, env: AnyEnvelope): SessionState {
	if (env.event === "session.snapshot") return snapshot(state, env.payload);
	if (env.event === "heartbeat" || env.seq <= state.lastSeq) return state;
	const next = { ...state, lastSeq: env.seq, view: { ...state.view, seq: env.seq } };
	const view = next.view;
	const ui = (patch: Partial<UiState>) => {
		next.view = { ...next.view, ui: { ...next.view.ui, ...patch } };
	};

	switch (env.event) {
		case "session.state":
		case "agent.start":
		case "agent.end": {
			const streaming = env.event === "session.state" ? env.payload.streaming : env.event === "agent.start";
			next.view = { ...view, streaming, session: { ...view.session, streaming } };
			// A run that ended leaves nothing in flight: anything still a draft was aborted or already persisted.
			if (!streaming) {
				next.drafts = [];
				next.tools = [];
			}
			return next;
		}
		case "session.info":
			next.view = { ...view, session: env.payload.session };
			return next;
		case "session.model":
			next.view = { ...view, model: env.payload.model, thinkingLevel: env.payload.thinkingLevel };
			return next;
		case "session.commands":
			next.view = { ...view, commands: env.payload.commands };
			return next;
		case "session.replaced":
			// The screen follows the new session; this one's state stays as it was.
			return next;
		case "session.usage":
			next.view = { ...view, usage: env.payload };
			return next;
		case "session.queue":
			next.view = { ...view, queue: env.payload };
			return next;
		// The stream refetches the view (its rows changed wholesale).
		case "session.branch":
			return next;
		case "bash.start": {
			const { bashId, command, excludeFromContext } = env.payload;
			const run: LiveBash = { bashId, command, excludeFromContext, output: "", ended: false };
			next.bash = upsert(next.bash, run, (b) => b.bashId === bashId);
			return next;
		}
		case "bash.update":
			next.bash = next.bash.map((b) => (b.bashId === env.payload.bashId ? { ...b, output: env.payload.text } : b));
			return next;
		case "bash.end": {
			const { bashId, exitCode } = env.payload;
			next.bash = next.bash.map((b) =>
				b.bashId === bashId ? { ...b, ended: true, ...(exitCode !== undefined ? { exitCode } : {}) } : b,
			);
			return next;
		}
		case "message.start":
			if (!next.drafts.some((d) => d.draftId === env.payload.draftId)) {
				next.drafts = [...next.drafts, { draftId: env.payload.draftId, text: "", thinking: "", ended: false }];
			}
			return next;
		case "message.delta": {
			const { draftId, kind, delta } = env.payload;
			const known = next.drafts.some((d) => d.draftId === draftId);
			const base = known ? next.drafts : [...next.drafts, { draftId, text: "", thinking: "", ended: false }];
			next.drafts = base.map((d) =>
				d.draftId !== draftId
					? d
					: kind === "thinking"
						? { ...d, thinking: d.thinking + delta }
						: { ...d, text: d.text + delta },
			);
			return next;
		}
		case "message.end":
			next.drafts = next.drafts.map((d) => (d.draftId === env.payload.draftId ? { ...d, ended: true } : d));
			return next;
		case "tool.start": {
			const { toolCallId, toolName, args } = env.payload;
			const tool: LiveTool = { toolCallId, toolName, args, output: "", ended: false, isError: false };
			next.tools = upsert(next.tools, tool, (t) => t.toolCallId === toolCallId);
			return next;
		}
		case "tool.update":
			// Updates carry the output so far, not an increment.
			next.tools = next.tools.map((t) =>
				t.toolCallId === env.payload.toolCallId ? { ...t, output: env.payload.text } : t,
			);
			return next;
		case "tool.end": {
			const { toolCallId, toolName, text, isError } = env.payload;
			const prev = next.tools.find((t) => t.toolCallId === toolCallId);
			const tool: LiveTool = { toolCallId, toolName, args: prev?.args, output: text, ended: true, isError };
			next.tools = upsert(next.tools, tool, (t) => t.toolCallId === toolCallId);
			return next;
		}
		case "transcript.row": {
			const { row, draftId } = env.payload;
			next.view = { ...view, rows: upsertRow(view.rows, row) };
			if (draftId !== undefined) next.drafts = next.drafts.filter((d) => d.draftId !== draftId);
			if (row.kind === "tool_result") next.tools = next.tools.filter((t) => t.toolCallId !== row.toolCallId);
			// The recorded row takes over from the oldest live run of that command.
			if (row.kind === "bash") {
				const i = next.bash.findIndex((b) => b.command === row.command);
				if (i >= 0) next.bash = next.bash.filter((_, j) => j !== i);
			}
			return next;
		}
		case "extension.ui": {
			const p = env.payload;
			const panels =
				"removed" in p
					? view.ui.panels.filter((c) => c.id !== p.id)
					: upsert<NormalizedCard>(view.ui.panels, { ...p.card, id: p.id }, (c) => c.id === p.id);
			ui({ panels });
			return next;
		}
		case "extension.app": {
			const p = env.payload;
			const apps =
				"removed" in p
					? view.ui.apps.filter((a) => a.appId !== p.appId)
					: upsert(view.ui.apps, p.app, (a) => a.appId === p.appId);
			ui({ apps });
			return next;
		}
		case "extension.status": {
			const statuses = { ...view.ui.statuses };
			if (env.payload.text === undefined || env.payload.text === "") delete statuses[env.payload.key];
			else statuses[env.payload.key] = env.payload.text;
			ui({ statuses });
			return next;
		}
		case "extension.widget": {
			const widgets = { ...view.ui.widgets };
			const { key, lines, placement } = env.payload;
			if (!lines) delete widgets[key];
			else widgets[key] = { lines, placement: placement ?? widgets[key]?.placement ?? "aboveEditor" };
			ui({ widgets });
			return next;
		}
		case "extension.title":
			ui({ title: env.payload.title });
			return next;
		case "extension.editor":
			ui({ editorText: env.payload.text });
			next.editorRevision = state.editorRevision + 1;
			return next;
		case "extension.dialog":
			ui({ dialogs: upsert(view.ui.dialogs, env.payload, (d) => d.requestId === env.payload.requestId) });
			return next;
		case "extension.dialog.dismiss":
			ui({ dialogs: view.ui.dialogs.filter((d) => d.requestId !== env.payload.requestId) });
			return next;
		case "extension.overlay": {
			const p = env.payload;
			if ("closed" in p) {
				if (view.ui.overlay?.id === p.closed) {
					const { overlay: _gone, ...rest } = view.ui;
					next.view = { ...view, ui: rest };
				}
				return next;
			}
			ui({ overlay: p.overlay });
			if (p.draft !== undefined) next.overlayDraft = { text: p.draft, n: (state.overlayDraft?.n ?? 0) + 1 };
			return next;
		}
		case "extension.custom.open": {
			const { custom } = env.payload;
			ui({ customs: upsert(view.ui.customs ?? [], custom, (c) => c.customId === custom.customId) });
			return next;
		}
		case "extension.custom.frame": {
			const { customId, columns, lines } = env.payload;
			const customs = view.ui.customs?.map((c) => (c.customId === customId ? { ...c, columns, lines } : c));
			if (customs) ui({ customs });
			return next;
		}
		case "extension.custom.close": {
			const customs = view.ui.customs?.filter((c) => c.customId !== env.payload.customId);
			if (customs) ui({ customs });
			return next;
		}
		// Transient or mirrored elsewhere: notify is a toast, an extension error also arrives as an `error` row.
		case "extension.notify":
		case "extension.error":
		case "transcript.drawn":
		case "sessions.changed":
			return next;
	}
}

function afterSnapshot(state: SessionState) {
	return { editorRevision: state.editorRevision, snapshotRevision: state.snapshotRevision + 1 };
}

/**
 * A fresh view of the session (a snapshot on the stream, a resync) replaces the state, except the earlier rows the
 * reader has already loaded: when the snapshot's first row is one the page holds, the rows before it stay, and the
 * count of rows still to load drops by as many. Without this a snapshot landing after a page of earlier rows put
 * that page back out of reach, and the reader's place with it.
 */
export function snapshot(state: SessionState, view: SessionView): SessionState {
	const first = view.rows[0];
	const at =
		first && view.session.id === state.view.session.id ? state.view.rows.findIndex((r) => r.id === first.id) : -1;
	if (at <= 0 || (view.olderRows ?? 0) < at) return { ...initSessionState(view), ...afterSnapshot(state) };
	const kept = {
		...view,
		rows: [...state.view.rows.slice(0, at), ...view.rows],
		olderRows: (view.olderRows ?? 0) - at,
	};
	return { ...initSessionState(kept), ...afterSnapshot(state) };
}

function upsert<T>(list: T[], item: T, same: (x: T) => boolean): T[] {
	const i = list.findIndex(same);
	if (i < 0) return [...list, item];
	const copy = list.slice();
	copy[i] = item;
	return copy;
}

function upsertRow(rows: TranscriptRow[], row: TranscriptRow): TranscriptRow[] {
	return upsert(rows, row, (r) => r.id === row.id);
}
