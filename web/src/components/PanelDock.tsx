/** Live panels: the latest card for each id, in the side pane (the transcript keeps a marker of each update). */
import type { NormalizedCard } from "../types.js";
import type { RunCardCommand } from "./ActionButton.js";
import { Card } from "./Card.js";

export function PanelDock({ panels, onCommand }: { panels: NormalizedCard[]; onCommand: RunCardCommand }) {
	return (
		<div class="panel-dock" data-testid="panel-dock" hidden={panels.length === 0}>
			{panels.map((card, i) => (
				<div class="panel" key={card.id ?? `i${i}`} data-testid="panel" data-panel-id={card.id} tabIndex={-1}>
					<Card card={card} place={{ panel: card.id ?? "" }} onCommand={onCommand} />
				</div>
			))}
		</div>
	);
}
