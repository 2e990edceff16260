/**
 * A thin rail beside the transcript with a mark for each of the user's prompts, placed by where it sits in the
 * whole session (rows not loaded yet keep their share at the top): a click brings that prompt to the top.
 */
import { memo } from "../memo.js";
import { visible } from "../visible.js";

export interface Prompt {
	id: string;
	text: string;
	/** Its index among all rows of the session, loaded or not. */
	at: number;
}

interface RailProps {
	prompts: readonly Prompt[];
	total: number;
	current: string | undefined;
	onJump: (id: string) => void;
}

export const PromptRail = memo(function PromptRail({ prompts, total, current, onJump }: RailProps) {
	if (prompts.length < 2) return null;
	return (
		<nav class="prompt-rail" aria-label="Your prompts" data-testid="prompt-rail">
			{prompts.map((p, n) => {
				const label = visible(p.text.replace(/\s+/g, " ").slice(0, 80)) || "(empty)";
				return (
					<button
						key={p.id}
						type="button"
						class={`prompt-mark${p.id === current ? " is-current" : ""}`}
						data-testid="prompt-mark"
						data-row-id={p.id}
						style={{ top: `${(p.at / Math.max(1, total - 1)) * 100}%` }}
						title={label}
						aria-label={`Prompt ${n + 1}: ${label}`}
						onClick={() => onJump(p.id)}
					/>
				);
			})}
		</nav>
	);
});
