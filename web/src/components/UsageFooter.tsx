/**
 * pi's footer line: ↑input ↓output R(cache read) W(cache write) $cost, then the context fill as
 * `12.3%/200k` (`?` right after a compaction, until the next answer reports it), coloured past 70% and 90%.
 */
import { formatTokens } from "../format.js";
import type { SessionUsage } from "../types.js";

export function UsageFooter({ usage }: { usage: SessionUsage | undefined }) {
	if (!usage) return null;
	const parts: { key: string; text: string; title: string }[] = [];
	if (usage.input) parts.push({ key: "input", text: `↑${formatTokens(usage.input)}`, title: "input tokens" });
	if (usage.output) parts.push({ key: "output", text: `↓${formatTokens(usage.output)}`, title: "output tokens" });
	if (usage.cacheRead)
		parts.push({ key: "cacheRead", text: `R${formatTokens(usage.cacheRead)}`, title: "cache read tokens" });
	if (usage.cacheWrite)
		parts.push({ key: "cacheWrite", text: `W${formatTokens(usage.cacheWrite)}`, title: "cache write tokens" });
	if (usage.cost) parts.push({ key: "cost", text: `$${usage.cost.toFixed(3)}`, title: "cost" });
	const percent =
		usage.contextTokens !== null && usage.contextWindow > 0
			? (usage.contextTokens / usage.contextWindow) * 100
			: undefined;
	const window = usage.contextWindow > 0 ? `/${formatTokens(usage.contextWindow)}` : "";
	const fill = percent === undefined ? `?${window}` : `${percent.toFixed(1)}%${window}`;
	const level = percent === undefined ? "" : percent > 90 ? " context-full" : percent > 70 ? " context-high" : "";
	return (
		<div
			class="usage-footer"
			data-testid="usage-footer"
			data-input={usage.input}
			data-output={usage.output}
			data-cache-read={usage.cacheRead}
			data-cache-write={usage.cacheWrite}
			data-cost={usage.cost}
			data-context-tokens={usage.contextTokens ?? ""}
			data-context-window={usage.contextWindow}
		>
			{parts.map((p) => (
				<span key={p.key} data-usage={p.key} title={p.title}>
					{p.text}
				</span>
			))}
			<span
				class={`usage-context${level}`}
				data-usage="context"
				title={
					usage.contextTokens === null
						? "context size not known until the next answer"
						: `${usage.contextTokens} of ${usage.contextWindow || "?"} context tokens`
				}
			>
				{fill}
			</span>
		</div>
	);
}
