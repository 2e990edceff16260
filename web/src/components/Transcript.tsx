/**
 * The conversation: persisted rows (keyed by row id, so replays never duplicate them), then tools that are
 * running without a persisted call yet, then the drafts still streaming. A long transcript is windowed
 * (virtual-rows.ts): only rows near the viewport are drawn, earlier pages load as the reader nears the top, a
 * button returns to the bottom and a rail jumps between the user's prompts.
 */
import { useCallback, useMemo, useRef, useState } from "preact/hooks";
import type { Draft, LiveTool, SessionState } from "../state.js";
import type { TranscriptRow } from "../types.js";
import { useVirtualRows } from "../virtual-rows.js";
import { useDrawingColumns } from "../drawings.js";
import type { RunCardCommand } from "./ActionButton.js";
import { LiveBashView } from "./BashRow.js";
import { type Prompt, PromptRail } from "./PromptRail.js";
import { type PanelMarker, Row } from "./Row.js";
import type { Reveal } from "./SidePane.js";
import { DraftView, ToolCall } from "./ToolCall.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** Rows other than an assistant's get these, so a tool's progress does not redraw them. */
const NO_LIVE = new Map<string, LiveTool>();
const NO_RESULTS = new Map<string, ToolResultRow>();

interface TranscriptProps {
	state: SessionState;
	onCommand: RunCardCommand;
	/** Loads the page of rows before the first one shown; false when nothing came (it failed, or none are left). */
	onShowEarlier?: () => Promise<boolean>;
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
	const older = state.view.olderRows ?? 0;
	const ids = useMemo(() => rows.map((r) => r.id), [rows]);
	const prompts = useMemo(() => {
		const out: Prompt[] = [];
		rows.forEach((row, i) => {
			if (row.kind === "user") out.push({ id: row.id, text: row.text, at: older + i });
		});
		return out;
	}, [rows, older]);

	const scroller = useRef<HTMLDivElement>(null);
	const list = useRef<HTMLDivElement>(null);
	const [loading, setLoading] = useState(false);
	const busy = useRef(false);
	const olderNow = useRef(older);
	olderNow.current = older;
	/** The count of earlier rows at which a load brought nothing (it failed): no retry on every frame. */
	const stalledAt = useRef<number | undefined>(undefined);
	const showEarlier = useCallback(async () => {
		if (busy.current || !onShowEarlier) return;
		busy.current = true;
		setLoading(true);
		const before = olderNow.current;
		let loaded = false;
		try {
			loaded = await onShowEarlier();
		} finally {
			// A load that brought nothing waits for a click. Judged by the load itself, not by the count after it:
			// a snapshot of the session can land meanwhile and set the count back, which is not a failure.
			stalledAt.current = loaded ? undefined : before;
			busy.current = false;
			setLoading(false);
		}
	}, [onShowEarlier]);
	const nearTop = useCallback(() => {
		if (older > 0 && stalledAt.current !== older) void showEarlier();
	}, [older, showEarlier]);
	const win = useVirtualRows(ids, scroller, list, nearTop);
	useDrawingColumns(list, state.view.session.id);
	// The prompt at or above the top of what is drawn: the rail marks where the reader is.
	const current = useMemo(() => {
		let id: string | undefined;
		for (const p of prompts) if (p.at - older <= win.start + 1) id = p.id;
		return id;
	}, [prompts, older, win.start]);

	return (
		<div class="transcript-frame">
			<div class="transcript" data-testid="transcript" ref={scroller} onScroll={win.onScroll}>
				{older > 0 && onShowEarlier && (
					<button
						type="button"
						class="show-earlier"
						data-testid="older-rows"
						disabled={loading}
						onClick={() => {
							stalledAt.current = undefined;
							void showEarlier();
						}}
					>
						{loading ? "Loading earlier messages…" : `Show earlier messages (${older})`}
					</button>
				)}
				{rows.length === 0 && state.drafts.length === 0 && <p class="empty">No messages yet. Say something below.</p>}
				<div
					class="transcript-rows"
					ref={list}
					style={{ paddingTop: `${win.padTop}px`, paddingBottom: `${win.padBottom}px` }}
				>
					{rows.slice(win.start, win.end).map((row) => (
						<div class="vrow" key={row.id} data-vid={row.id}>
							<Row
								row={row}
								live={row.kind === "assistant" ? live : NO_LIVE}
								results={row.kind === "assistant" ? results : NO_RESULTS}
								onCommand={onCommand}
								marker={markers.get(row.id)}
								appOpen={row.kind === "app" && openApps.has(row.appId)}
								onReveal={onReveal}
							/>
						</div>
					))}
				</div>
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
			<PromptRail prompts={prompts} total={older + rows.length} current={current} onJump={win.scrollToRow} />
			{!win.atBottom && (
				<button
					type="button"
					class="to-bottom"
					data-testid="scroll-to-bottom"
					aria-label="Scroll to the latest message"
					title="Scroll to the latest message"
					onClick={win.scrollToBottom}
				>
					<span aria-hidden="true">↓</span>
				</button>
			)}
		</div>
	);
}
