/** The slash-command list shown while typing `/name`; each entry can be pinned as a quick action. */
import type { CommandView } from "../types.js";
import { Icon } from "./Icon.js";
import { visible } from "../visible.js";

const MAX_SUGGESTIONS = 50;

/** Prefix matches first, then names containing the query anywhere. */
export function filterCommands(commands: CommandView[], query: string): CommandView[] {
	const q = query.toLowerCase();
	const prefix: CommandView[] = [];
	const inner: CommandView[] = [];
	for (const c of commands) {
		const name = c.name.toLowerCase();
		if (name.startsWith(q)) prefix.push(c);
		else if (q && name.includes(q)) inner.push(c);
	}
	return [...prefix, ...inner].slice(0, MAX_SUGGESTIONS);
}

interface Props {
	commands: CommandView[];
	highlight: number;
	onPick: (name: string) => void;
	onPin: (name: string) => void;
}

export function CommandSuggestions({ commands, highlight, onPick, onPin }: Props) {
	return (
		<ul class="suggestions" data-testid="command-suggestions" aria-label="Commands">
			{commands.map((c, i) => (
				<li key={c.name} class={i === highlight ? "suggestion active" : "suggestion"} data-command={c.name}>
					<button
						type="button"
						class="suggestion-pick"
						// mousedown would blur the textarea first; keep focus where the user types
						onMouseDown={(e) => e.preventDefault()}
						onClick={() => onPick(c.name)}
					>
						<span class="suggestion-name">/{visible(c.name)}</span>
						{c.description && <span class="suggestion-desc">{visible(c.description)}</span>}
						<span class="suggestion-source">{c.source}</span>
					</button>
					<button
						type="button"
						class="icon-button"
						data-testid="pin-command"
						data-command={c.name}
						title={`Pin /${c.name} as a quick action`}
						aria-label={`Pin /${c.name}`}
						onMouseDown={(e) => e.preventDefault()}
						onClick={() => onPin(c.name)}
					>
						<Icon name="pin" />
					</button>
				</li>
			))}
		</ul>
	);
}
