/** The small extension surfaces: status line and text widgets. */
import type { UiState } from "../types.js";
import { visible, visibleText } from "../visible.js";

export function StatusBar({ statuses }: { statuses: Record<string, string> }) {
	const entries = Object.entries(statuses);
	return (
		<div class="status-bar" data-testid="status-bar" hidden={entries.length === 0}>
			{entries.map(([key, text]) => (
				<span class="status-item" key={key} data-status-key={key} title={key}>
					{visible(text)}
				</span>
			))}
		</div>
	);
}

export function Widgets({
	widgets,
	placement,
}: {
	widgets: UiState["widgets"];
	placement: "aboveEditor" | "belowEditor";
}) {
	const list = Object.entries(widgets).filter(([, w]) => w.placement === placement);
	if (list.length === 0) return null;
	return (
		<div class={`widgets widgets-${placement}`}>
			{list.map(([key, w]) => (
				<pre class="widget" key={key} data-testid="widget" data-widget-key={key} data-placement={placement}>
					{visibleText(w.lines.join("\n"))}
				</pre>
			))}
		</div>
	);
}
