/** A tool call with its arguments (and live output while it runs), and an assistant message still streaming. */
import { argsPreview } from "../format.js";
import type { Draft, LiveTool } from "../state.js";
import type { ToolCallView, TranscriptRow } from "../types.js";
import { Markdown } from "./Markdown.js";
import { ToolBody } from "./ToolBody.js";
import { visible } from "../visible.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

/** pi names an MCP server's tools `mcp__<server>__<tool>` (its own renderer reads them the same way). */
export function mcpToolOf(name: string): { server: string; tool: string } | undefined {
	const match = /^mcp__(.+?)__(.+)$/.exec(name);
	return match ? { server: match[1]!, tool: match[2]! } : undefined;
}

/** The end of a running tool's output shown inline; the whole of it is in the result once it is done. */
const LIVE_TAIL = 4000;

/** A tool's name; an MCP tool's with its server's name in front. */
export function ToolName({ name }: { name: string }) {
	const mcp = mcpToolOf(name);
	if (!mcp) return <span class="tool-name">{visible(name)}</span>;
	return (
		<span class="tool-name" title={visible(name)}>
			<span class="badge tool-server" data-testid="tool-server" title="MCP server">
				{visible(mcp.server)}
			</span>{" "}
			{visible(mcp.tool)}
		</span>
	);
}

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
					<ToolName name={call.name} />
					<span class="tool-preview">{visible(argsPreview(call.args))}</span>
					<span class="tool-status">
						{status === "running" ? (
							<span class="spinner" role="status" aria-label="running" />
						) : status === "error" ? (
							<span class="failed">failed</span>
						) : null}
					</span>
				</summary>
				<ToolBody call={call} diff={result?.diff} />
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
				<Markdown text={draft.text} class="assistant-text" cached={false} />
			) : (
				!draft.thinking && <span class="typing" aria-hidden="true" />
			)}
			{!draft.ended && draft.text && <span class="cursor" aria-hidden="true" />}
		</div>
	);
}
