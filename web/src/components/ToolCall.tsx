/** A tool call with its arguments (and live output while it runs), and an assistant message still streaming. */
import { argsPreview, showJson } from "../format.js";
import type { Draft, LiveTool } from "../state.js";
import type { ToolCallView, TranscriptRow } from "../types.js";
import { Markdown } from "./Markdown.js";
import { visible } from "../visible.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** The end of a running tool's output shown inline; the whole of it is in the result once it is done. */
const LIVE_TAIL = 4000;

export function ToolCall({ call, live, result }: { call: ToolCallView; live?: LiveTool; result?: ToolResultRow }) {
	const status = result
		? result.isError
			? "error"
			: "done"
		: live
			? live.ended
				? live.isError
					? "error"
					: "done"
				: "running"
			: "no-result";
	// While it runs, its output shows under the call without expanding it (pi's terminal streams it there too).
	const running = status === "running" && live?.output;
	return (
		<>
			<details
				class={`tool-call status-${status}`}
				data-testid="tool-call"
				data-tool-name={call.name}
				data-tool-call-id={call.id}
				data-status={status}
			>
				<summary>
					<span class="tool-name">{visible(call.name)}</span>
					<span class="tool-preview">{visible(argsPreview(call.args))}</span>
					<span class="tool-status">
						{status === "running" ? (
							<span class="spinner" role="status" aria-label="running" />
						) : status === "error" ? (
							<span class="failed">failed</span>
						) : null}
					</span>
				</summary>
				<pre class="tool-args">{showJson(call.args ?? {})}</pre>
				{live && !result && live.output && !running && <pre class="tool-output">{live.output}</pre>}
			</details>
			{running && (
				<pre class="tool-output tool-output-live" data-testid="tool-live-output">
					{live.output.length > LIVE_TAIL ? `…${live.output.slice(-LIVE_TAIL)}` : live.output}
				</pre>
			)}
		</>
	);
}

export function ThinkingBlock({ text, streaming }: { text: string; streaming?: boolean }) {
	if (!text) return null;
	return (
		// Open while it streams, as pi shows thinking arriving; folded once the answer is there.
		<details class="thinking" open={streaming} data-testid="thinking" data-streaming={streaming ? "true" : "false"}>
			<summary>{streaming ? "Thinking…" : "Thinking"}</summary>
			<div class="thinking-text">{text}</div>
		</details>
	);
}

export function DraftView({ draft }: { draft: Draft }) {
	return (
		<div class="row row-assistant draft" data-testid="draft" data-draft-id={draft.draftId}>
			<ThinkingBlock text={draft.thinking} streaming={!draft.ended && !draft.text} />
			{draft.text ? (
				<Markdown text={draft.text} class="assistant-text" />
			) : (
				!draft.thinking && <span class="typing" aria-hidden="true" />
			)}
			{!draft.ended && draft.text && <span class="cursor" aria-hidden="true" />}
		</div>
	);
}
