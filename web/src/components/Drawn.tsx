/**
 * A row an extension draws: pi's component's lines (drawn on the daemon), with its raw data one click away and its
 * own expand toggle (Ctrl+O, pi's `app.tools.expand`, toggles every drawn row). A renderer that failed or was too
 * slow costs this row only: it shows its raw data under a line naming the extension.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { toggleExpanded, useDrawing } from "../drawings.js";
import { visible } from "../visible.js";
import { StyledLines } from "./StyledLines.js";

export function Drawn({ drawKey, raw }: { drawKey: string; raw: ComponentChildren }) {
	const { drawing, expanded } = useDrawing(drawKey);
	const [showRaw, setShowRaw] = useState(false);
	const failed = drawing && "error" in drawing ? drawing : undefined;
	const lines = drawing && "lines" in drawing ? drawing.lines : undefined;
	// pi's terminal leaves out an entry its renderer draws as nothing.
	if (lines && lines.length === 0 && !showRaw) return null;
	return (
		<div
			class="drawn"
			data-testid="drawn"
			data-draw-key={drawKey}
			data-state={failed ? "failed" : lines ? "drawn" : "waiting"}
		>
			{failed && (
				<p class="drawn-failed" role="note" data-testid="drawn-failed">
					{failed.extension ? `Extension ${visible(failed.extension)}: ` : ""}
					{visible(failed.error)}. Its raw data:
				</p>
			)}
			{lines && !showRaw ? <StyledLines lines={lines} testId="drawn-lines" /> : raw}
			{lines && (
				<div class="drawn-actions">
					<button
						type="button"
						class="link-button"
						data-testid="drawn-raw"
						aria-pressed={showRaw}
						onClick={() => setShowRaw(!showRaw)}
					>
						{showRaw ? "Drawn" : "Raw"}
					</button>
					<button
						type="button"
						class="link-button"
						data-testid="drawn-expand"
						aria-pressed={expanded}
						title="Expand or collapse this row (Ctrl+O: every drawn row)"
						onClick={() => toggleExpanded(drawKey)}
					>
						{expanded ? "Collapse" : "Expand"}
					</button>
				</div>
			)}
		</div>
	);
}
