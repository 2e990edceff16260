/**
 * What an expanded tool call shows for the tools that change files, as pi's terminal draws them: `edit` the diff
 * its result carries (`details.diff`), `write` the new file's text. Other tools show their arguments.
 */
import { useState } from "preact/hooks";
import { showJson } from "../format.js";
import type { ToolCallView } from "../types.js";
import { visibleText } from "../visible.js";

/** Lines of a written file shown before "N more lines" (pi's terminal shows 10 folded, all expanded). */
export const WRITE_LINES = 40;

type DiffKind = "added" | "removed" | "context" | "skip";

/** pi's diff lines: `+N text`, `-N text`, ` N text`, and ` <pad> ...` between windows. */
function diffLine(line: string): { kind: DiffKind; num: string; text: string } {
	const match = /^([+\- ])(\s*\d*) (.*)$/.exec(line);
	if (!match) return { kind: "skip", num: "", text: line };
	const [, sign, num, text] = match as unknown as [string, string, string, string];
	if (!num.trim()) return { kind: "skip", num: "", text: text.trim() || "…" };
	return { kind: sign === "+" ? "added" : sign === "-" ? "removed" : "context", num: num.trim(), text };
}

export function DiffView({ diff }: { diff: string }) {
	const lines = diff.split("\n").map(diffLine);
	const added = lines.filter((l) => l.kind === "added").length;
	const removed = lines.filter((l) => l.kind === "removed").length;
	return (
		<div class="tool-diff" data-testid="tool-diff" data-added={added} data-removed={removed}>
			<div class="tool-diff-stat muted">
				<span class="diff-added-count">+{added}</span> <span class="diff-removed-count">−{removed}</span>
			</div>
			<pre class="diff-lines">
				{lines.map((l, i) => (
					<div key={i} class={`diff-line diff-${l.kind}`} data-diff={l.kind}>
						<span class="diff-sign" aria-hidden="true">
							{l.kind === "added" ? "+" : l.kind === "removed" ? "−" : " "}
						</span>
						<span class="diff-num">{l.num}</span>
						<span class="diff-text">{visibleText(l.text)}</span>
					</div>
				))}
			</pre>
		</div>
	);
}

export function WriteView({ path, content }: { path: string; content: string }) {
	const [all, setAll] = useState(false);
	const lines = content.replace(/\n+$/, "").split("\n");
	const shown = all ? lines : lines.slice(0, WRITE_LINES);
	const more = lines.length - shown.length;
	const width = String(lines.length).length;
	return (
		<div class="tool-write" data-testid="tool-write" data-lines={lines.length}>
			<div class="muted tool-write-head">
				{visibleText(path)} · {lines.length === 1 ? "1 line" : `${lines.length} lines`}
			</div>
			<pre class="diff-lines">
				{shown.map((line, i) => (
					<div key={i} class="diff-line diff-added">
						<span class="diff-num">{String(i + 1).padStart(width, " ")}</span>
						<span class="diff-text">{visibleText(line)}</span>
					</div>
				))}
			</pre>
			{more > 0 && (
				<button type="button" class="link-button" data-testid="write-more" onClick={() => setAll(true)}>
					{more === 1 ? "1 more line" : `${more} more lines`}
				</button>
			)}
		</div>
	);
}

/** The body of an expanded call: the change for edit and write, the arguments for the rest (and as a fallback). */
export function ToolBody({ call, diff }: { call: ToolCallView; diff?: string }) {
	const args = (call.args ?? {}) as { path?: unknown; content?: unknown };
	if (call.name === "edit" && diff) return <DiffView diff={diff} />;
	if (call.name === "write" && typeof args.content === "string" && typeof args.path === "string") {
		return <WriteView path={args.path} content={args.content} />;
	}
	return <pre class="tool-args">{showJson(call.args ?? {})}</pre>;
}
