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

const place = (at: number, total: number) => `${(at / Math.max(1, total - 1)) * 100}%`;

/** The rail; the marks are drawn again only when the prompts change, not as the reader scrolls. */
export function PromptRail({ prompts, total, current, onJump }: RailProps) {
	if (prompts.length < 2) return null;
	const here = current === undefined ? undefined : prompts.find((p) => p.id === current);
	return (
		<nav class="prompt-rail" aria-label="Your prompts" data-testid="prompt-rail">
			<Marks prompts={prompts} total={total} onJump={onJump} />
			{here && <span class="prompt-here" aria-hidden="true" style={{ top: place(here.at, total) }} />}
		</nav>
	);
}

const Marks = memo(function Marks({ prompts, total, onJump }: Omit<RailProps, "current">) {
	return (
		<>
			{prompts.map((p, n) => {
				const label = visible(p.text.replace(/\s+/g, " ").slice(0, 80)) || "(empty)";
				return (
					<button
						key={p.id}
						type="button"
						class="prompt-mark"
						data-testid="prompt-mark"
						data-row-id={p.id}
						style={{ top: place(p.at, total) }}
						title={label}
						aria-label={`Prompt ${n + 1}: ${label}`}
						onClick={() => onJump(p.id)}
					/>
				);
			})}
		</>
	);
});
