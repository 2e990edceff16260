/**
 * The conversation: persisted rows (keyed by row id, so replays never duplicate them), then tools that are
 * running without a persisted call yet, then the drafts still streaming.
 */
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import type { Draft, LiveTool, SessionState } from "../state.js";
import type { TranscriptRow } from "../types.js";
import type { RunCommand } from "./ActionButton.js";
import { LiveBashView } from "./BashRow.js";
import { Row } from "./Row.js";
import { DraftView, ToolCall } from "./ToolCall.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** Within this many pixels of the bottom the view follows new content; further up the reader is reading. */
const STICK_PX = 80;

interface TranscriptProps {
	state: SessionState;
	onCommand: RunCommand;
	/** Fetches the page of rows before the first one shown. */
	onShowEarlier?: () => Promise<void>;
}

export function Transcript({ state, onCommand, onShowEarlier }: TranscriptProps) {
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
	// Only the latest card of a live panel shows in full; earlier ones are history (the dock has the current one).
	const superseded = useMemo(() => {
		const latest = new Map<string, string>();
		for (const row of rows)
			if (row.kind === "card" && row.source === "entry" && row.card.id) latest.set(row.card.id, row.id);
		const old = new Set<string>();
		for (const row of rows) {
			if (row.kind === "card" && row.source === "entry" && row.card.id && latest.get(row.card.id) !== row.id)
				old.add(row.id);
		}
		return old;
	}, [rows]);
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
					superseded={superseded.has(row.id)}
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
