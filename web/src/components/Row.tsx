/** One persisted transcript row, by kind. */
import { formatTokens, showJson } from "../format.js";
import type { LiveTool } from "../state.js";
import type { TranscriptRow } from "../types.js";
import type { RunCommand } from "./ActionButton.js";
import { BashView } from "./BashRow.js";
import { Card } from "./Card.js";
import { requestFork } from "../habit-events.js";
import { Markdown } from "./Markdown.js";
import { ThinkingBlock, ToolCall } from "./ToolCall.js";
import { visible, visibleText } from "../visible.js";

type ToolResultRow = Extract<TranscriptRow, { kind: "tool_result" }>;

interface RowProps {
	row: TranscriptRow;
	live: Map<string, LiveTool>;
	results: Map<string, ToolResultRow>;
	onCommand: RunCommand;
	/** A live panel's card that a later one replaced: kept as history, folded. */
	superseded?: boolean;
}

export function Row({ row, live, results, onCommand, superseded }: RowProps) {
	const common = { "data-testid": "row", "data-kind": row.kind, "data-row-id": row.id };
	switch (row.kind) {
		case "user":
			return (
				<div class={"row row-user"} {...common}>
					<Markdown text={row.text} class="bubble" />
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
					{row.toolCalls.map((call) => (
						<ToolCall key={call.id} call={call} live={live.get(call.id)} result={results.get(call.id)} />
					))}
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
					<details class={`tool-result${row.isError ? " is-error" : ""}`} data-testid="tool-result" open={row.isError}>
						<summary>
							<span class="tool-name">{visible(row.toolName)}</span>{" "}
							{row.isError ? <span class="failed">failed</span> : "result"}
							<span class="muted"> · {lineCount(row.text)}</span>
						</summary>
						<pre>{visibleText(row.text)}</pre>
					</details>
				</div>
			);
		case "card":
			return (
				<div class="row row-card" {...common}>
					{superseded ? (
						<details class="superseded">
							<summary>{visible(row.card.title ?? row.card.id)} · earlier version</summary>
							<Card card={row.card} onCommand={onCommand} />
						</details>
					) : (
						<Card card={row.card} onCommand={onCommand} />
					)}
				</div>
			);
		case "app":
			return (
				<div class="row row-note" {...common}>
					App “{visible(row.title ?? row.appId)}” {row.removed ? "closed" : "opened"}
				</div>
			);
		case "custom":
			return (
				<div class="row row-custom" {...common}>
					<details class="card card-custom">
						<summary>{visible(row.customType)}</summary>
						<pre>{visibleText(showJson(row.content))}</pre>
					</details>
				</div>
			);
		case "error":
			return (
				<div class="row row-error" role="alert" {...common}>
					<strong>Extension error{row.source ? ` (${row.source})` : ""}</strong>
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
