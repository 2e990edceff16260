/** One persisted transcript row, by kind. */
import { Fragment } from "preact";
import { formatTokens, showJson } from "../format.js";
import type { LiveTool } from "../state.js";
import type { TranscriptRow } from "../types.js";
import type { RunCardCommand } from "./ActionButton.js";
import { BashView } from "./BashRow.js";
import { Card } from "./Card.js";
import { Drawn } from "./Drawn.js";
import { toolDrawingKey } from "../../../src/chamber/tui/drawing-wire.js";
import { requestFork } from "../habit-events.js";
import { Markdown } from "./Markdown.js";
import { lazyView } from "../lazy-view.js";
import { memo } from "../memo.js";
import { ThinkingBlock, ToolCall, ToolName } from "./ToolCall.js";
import { FileChips, Thumbnails } from "./UserAttachments.js";
import { visible, visibleText } from "../visible.js";

// Only sessions with MCP Apps draw one: the host and its frame are fetched with the first.
const McpAppFrame = lazyView(
	() => import("./McpAppFrame.js"),
	(m) => m.McpAppFrame,
	"the MCP App",
);

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

interface RowProps {
	row: TranscriptRow;
	live: Map<string, LiveTool>;
	results: Map<string, ToolResultRow>;
	onCommand: RunCardCommand;
	/** A live panel's version: the current one (shown in the side pane), an earlier one, or a removed panel's last. */
	marker?: PanelMarker;
	onReveal?: (kind: "panel" | "app", id: string) => void;
	/** An app row whose app is still open: its row opens it in the side pane. */
	appOpen?: boolean;
}

export type PanelMarker = "current" | "earlier" | "gone";

const DIALOG_ENDINGS = { timeout: "timed out unanswered", cancelled: "was cancelled", aborted: "was withdrawn" };

/** Drawn again only when one of its props changes: the transcript re-renders on every streamed frame. */
export const Row = memo(RowView);

function RowView({ row, live, results, onCommand, marker, onReveal, appOpen }: RowProps) {
	const common = { "data-testid": "row", "data-kind": row.kind, "data-row-id": row.id };
	switch (row.kind) {
		case "user":
			return (
				<div class={"row row-user"} {...common}>
					{row.text && <Markdown text={row.text} class="bubble" />}
					{row.files && <FileChips files={row.files} />}
					{row.images ? <Thumbnails entryId={row.id} count={row.images} /> : null}
					<div class="row-actions">
						{row.images ? (
							<span class="muted" data-testid="user-images">
								{row.images === 1 ? "1 image" : `${row.images} images`}
							</span>
						) : null}
						<button
							type="button"
							class="link-button"
							data-testid="fork-here"
							title="Start a new session with the history before this message (pi's /fork)"
							onClick={() => requestFork(row.id)}
						>
							Fork
						</button>
					</div>
				</div>
			);
		case "bash":
			return (
				<BashView
					rowId={row.id}
					command={row.command}
					output={row.output}
					excludeFromContext={row.excludeFromContext}
					running={false}
					exitCode={row.exitCode}
					cancelled={row.cancelled}
					truncated={row.truncated}
				/>
			);
		case "compaction":
		case "branch_summary":
			return (
				<div class="row row-compaction" {...common}>
					<details class="compaction">
						<summary>
							{row.kind === "compaction" ? (
								<>
									Compacted: <span data-testid="tokens-before">{formatTokens(row.tokensBefore)}</span> →{" "}
									<span data-testid="tokens-after">
										{row.tokensAfter === undefined ? "?" : `~${formatTokens(row.tokensAfter)}`}
									</span>{" "}
									tokens
								</>
							) : (
								"Summary of the branch left behind"
							)}
						</summary>
						<Markdown text={row.summary} class="compaction-summary" />
					</details>
				</div>
			);
		case "assistant":
			return (
				<div class="row row-assistant" {...common}>
					<ThinkingBlock text={row.thinking ?? ""} />
					{row.text && <Markdown text={row.text} class="assistant-text" />}
					{row.toolCalls.map((call) => {
						const result = results.get(call.id);
						const plain = <ToolCall call={call} live={live.get(call.id)} result={result} />;
						// An MCP App sits below its call however the call is shown (drawn by its extension or not).
						return (
							<Fragment key={call.id}>
								{call.drawn ? <Drawn drawKey={toolDrawingKey(call.id)} raw={plain} /> : plain}
								{result?.mcpApp && <McpAppFrame entryId={result.id} app={result.mcpApp} />}
							</Fragment>
						);
					})}
					{row.errorMessage && (
						<div class="inline-error" role="alert">
							{row.errorMessage}
						</div>
					)}
				</div>
			);
		case "tool_result":
			return (
				<div class="row row-tool" {...common}>
					<details
						class={`tool-result${row.isError ? " is-error" : ""}`}
						data-testid="tool-result"
						open={row.isError && !row.drawn}
					>
						<summary>
							<ToolName name={row.toolName} /> {row.isError ? <span class="failed">failed</span> : "result"}
							{row.drawn && <span class="muted"> · drawn above</span>}
							<span class="muted"> · {lineCount(row.text)}</span>
						</summary>
						<pre>{visibleText(row.text)}</pre>
					</details>
				</div>
			);
		case "card": {
			if (!marker || !row.card.id) {
				return (
					<div class="row row-card" {...common}>
						<Card card={row.card} place={{ entry: row.id }} onCommand={onCommand} />
					</div>
				);
			}
			const id = row.card.id;
			const name = visible(row.card.title ?? id);
			return (
				<div class="row row-card row-marker" {...common} data-panel-marker={marker}>
					{marker === "current" ? (
						<button
							type="button"
							class="panel-marker"
							data-testid="panel-marker"
							data-panel-id={id}
							onClick={() => onReveal?.("panel", id)}
						>
							<span aria-hidden="true">◧</span> {name} · updated <span class="muted">· show</span>
						</button>
					) : (
						<details class="superseded">
							<summary>
								{name} · {marker === "earlier" ? "earlier version" : "last version (removed)"}
							</summary>
							<Card card={row.card} place={{ entry: row.id }} onCommand={onCommand} />
						</details>
					)}
				</div>
			);
		}
		case "app":
			return (
				<div class="row row-note" {...common}>
					{row.removed || !appOpen || !onReveal ? (
						<>
							App “{visible(row.title ?? row.appId)}” {row.removed ? "closed" : "opened"}
						</>
					) : (
						<button
							type="button"
							class="panel-marker"
							data-testid="app-marker"
							data-app-id={row.appId}
							onClick={() => onReveal("app", row.appId)}
						>
							App “{visible(row.title ?? row.appId)}” opened <span class="muted">· show</span>
						</button>
					)}
				</div>
			);
		case "dialog":
			return (
				<div class="row row-note row-dialog" {...common} data-reason={row.reason}>
					{row.method === "form" ? "Form" : "Question"} “{visible(row.title)}” {DIALOG_ENDINGS[row.reason]}
				</div>
			);
		case "changes":
			// Issue 33, Changes: a revert from the Changes view.
			return (
				<div class="row row-note row-changes" {...common}>
					{visibleText(row.text)}
				</div>
			);
		case "custom": {
			const raw = (
				<details class="card card-custom">
					<summary>{visible(row.customType)}</summary>
					<pre>{visibleText(showJson(row.content))}</pre>
				</details>
			);
			return (
				<div class="row row-custom" {...common} data-custom-type={row.customType}>
					{row.drawn ? <Drawn drawKey={row.id} raw={raw} /> : raw}
				</div>
			);
		}
		case "error":
			return (
				<div class="row row-error" role="alert" {...common}>
					<strong>
						{row.source === "mcp"
							? "MCP (pi's report)"
							: row.source === "project trust"
								? "Project not trusted"
								: `Extension error${row.source ? ` (${row.source})` : ""}`}
					</strong>
					<pre>{visibleText(row.message)}</pre>
				</div>
			);
		default: {
			// Every row kind is drawn: a kind added to the wire without a case here fails to compile.
			const unknown: never = row;
			return unknown;
		}
	}
}

function lineCount(text: string): string {
	if (!text) return "empty";
	const n = text.split("\n").length;
	return n === 1 ? "1 line" : `${n} lines`;
}
