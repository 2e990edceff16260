/**
 * The conversation: persisted rows (keyed by row id, so replays never duplicate them), then tools that are
 * running without a persisted call yet, then the drafts still streaming.
 */
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import type { Draft, LiveTool, SessionState } from "../state.js";
import type { TranscriptRow } from "../types.js";
import type { RunCommand } from "./ActionButton.js";
import { Row } from "./Row.js";
import { DraftView, ToolCall } from "./ToolCall.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** Within this many pixels of the bottom the view follows new content; further up the reader is reading. */
const STICK_PX = 80;

export function Transcript({ state, onCommand }: { state: SessionState; onCommand: RunCommand }) {
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
	const orphans = state.tools.filter((t) => !called.has(t.toolCallId) && !results.has(t.toolCallId));

	const ref = useRef<HTMLDivElement>(null);
	const stick = useRef(true);
	useLayoutEffect(() => {
		const el = ref.current;
		if (el && stick.current) el.scrollTop = el.scrollHeight;
	});

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
			{rows.length === 0 && state.drafts.length === 0 && <p class="empty">No messages yet. Say something below.</p>}
			{rows.map((row) => (
				<Row key={row.id} row={row} live={live} results={results} onCommand={onCommand} />
			))}
			{orphans.map((tool) => (
				<div class="row row-assistant" key={`live:${tool.toolCallId}`}>
					<ToolCall call={{ id: tool.toolCallId, name: tool.toolName, args: tool.args }} live={tool} />
				</div>
			))}
			{state.drafts.map((draft: Draft) => (
				<DraftView key={draft.draftId} draft={draft} />
			))}
		</div>
	);
}
