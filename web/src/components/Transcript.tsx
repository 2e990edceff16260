/**
 * The conversation: persisted rows (keyed by row id, so replays never duplicate them), then tools that are
 * running without a persisted call yet, then the drafts still streaming.
 */
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import type { Draft, LiveTool, SessionState } from "../state.js";
import type { TranscriptRow } from "../types.js";
import type { RunCardCommand } from "./ActionButton.js";
import { LiveBashView } from "./BashRow.js";
import { type PanelMarker, Row } from "./Row.js";
import type { Reveal } from "./SidePane.js";
import { DraftView, ToolCall } from "./ToolCall.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** Within this many pixels of the bottom the view follows new content; further up the reader is reading. */
const STICK_PX = 80;

interface TranscriptProps {
	state: SessionState;
	onCommand: RunCardCommand;
	/** Fetches the page of rows before the first one shown. */
	onShowEarlier?: () => Promise<void>;
	/** Opens the side pane at a live panel or an app (from its marker row). */
	onReveal?: (kind: Reveal["kind"], id: string) => void;
}

export function Transcript({ state, onCommand, onShowEarlier, onReveal }: TranscriptProps) {
	const { rows } = state.view;
	const results = useMemo(() => {
		const map = new Map<string, ToolResultRow>();
		for (const row of rows) if (row.kind === "tool_result") map.set(row.toolCallId, row);
		return map;
	}, [rows]);
	const called = useMemo(() => {
		const ids = new Set<string>();
		for (const row of rows) if (row.kind === "assistant") for (const call of row.toolCalls) ids.add(call.id);
		return ids;
	}, [rows]);
	const live = useMemo(() => new Map<string, LiveTool>(state.tools.map((t) => [t.toolCallId, t])), [state.tools]);
	// A live panel shows in full in the side pane only: each of its versions here is a marker row, the current one
	// opening the pane, earlier ones (and the last of a removed panel) folded as history.
	const markers = useMemo(() => {
		const latest = new Map<string, string>();
		for (const row of rows)
			if (row.kind === "card" && row.source === "entry" && row.card.id) latest.set(row.card.id, row.id);
		const shown = new Set(state.view.ui.panels.map((p) => p.id));
		const out = new Map<string, PanelMarker>();
		for (const row of rows) {
			if (row.kind !== "card" || row.source !== "entry" || !row.card.id) continue;
			out.set(row.id, latest.get(row.card.id) !== row.id ? "earlier" : shown.has(row.card.id) ? "current" : "gone");
		}
		return out;
	}, [rows, state.view.ui.panels]);
	const openApps = useMemo(() => new Set(state.view.ui.apps.map((a) => a.appId)), [state.view.ui.apps]);
	const orphans = state.tools.filter((t) => !called.has(t.toolCallId) && !results.has(t.toolCallId));

	const ref = useRef<HTMLDivElement>(null);
	const stick = useRef(true);
	/** Distance from the bottom to keep while earlier rows are prepended, so the reader's place holds. */
	const keepFromBottom = useRef<number | undefined>(undefined);
	useLayoutEffect(() => {
		const el = ref.current;
		if (!el) return;
		if (keepFromBottom.current !== undefined) {
			el.scrollTop = el.scrollHeight - keepFromBottom.current;
			keepFromBottom.current = undefined;
		} else if (stick.current) el.scrollTop = el.scrollHeight;
	});
	const older = state.view.olderRows ?? 0;
	const showEarlier = async () => {
		const el = ref.current;
		if (el) keepFromBottom.current = el.scrollHeight - el.scrollTop;
		await onShowEarlier?.();
	};

	return (
		<div
			class="transcript"
			data-testid="transcript"
			ref={ref}
			onScroll={(e) => {
				const el = e.currentTarget;
				stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
			}}
		>
			{older > 0 && onShowEarlier && (
				<button type="button" class="show-earlier" data-testid="older-rows" onClick={() => void showEarlier()}>
					Show earlier messages ({older})
				</button>
			)}
			{rows.length === 0 && state.drafts.length === 0 && <p class="empty">No messages yet. Say something below.</p>}
			{rows.map((row) => (
				<Row
					key={row.id}
					row={row}
					live={live}
					results={results}
					onCommand={onCommand}
					marker={markers.get(row.id)}
					appOpen={row.kind === "app" && openApps.has(row.appId)}
					onReveal={onReveal}
				/>
			))}
			{orphans.map((tool) => (
				<div class="row row-assistant" key={`live:${tool.toolCallId}`}>
					<ToolCall call={{ id: tool.toolCallId, name: tool.toolName, args: tool.args }} live={tool} />
				</div>
			))}
			{state.drafts.map((draft: Draft) => (
				<DraftView key={draft.draftId} draft={draft} />
			))}
			{state.bash.map((run) => (
				<LiveBashView key={run.bashId} run={run} />
			))}
		</div>
	);
}
