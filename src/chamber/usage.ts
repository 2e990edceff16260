/**
 * A session's usage as pi's footer shows it: tokens and cost summed over every assistant message in the file
 * (not just the ones still in context after a compaction) and, as pi 1.6 counts them, its `usage` entries, tool
 * results that report usage and summaries' own; the context fill from pi's own estimate.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { SessionUsage } from "./wire.js";

export interface AssistantUsage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
	totalTokens?: number;
	cost?: { total?: number };
}

const num = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? n : 0);

/** The `usage` of every assistant message among `entries`, in order. */
export function assistantUsages(entries: readonly SessionEntry[]): AssistantUsage[] {
	const usages: AssistantUsage[] = [];
	for (const entry of entries) {
		if (entry.type !== "message" || entry.message.role !== "assistant") continue;
		const u = (entry.message as { usage?: AssistantUsage }).usage;
		if (u) usages.push(u);
	}
	return usages;
}

/** What pi 1.6's footer adds to the totals besides assistant answers: none of it fills the context. */
export function otherUsages(entries: readonly SessionEntry[]): AssistantUsage[] {
	const usages: AssistantUsage[] = [];
	for (const entry of entries) {
		let usage: unknown;
		if (entry.type === "usage") usage = entry.usage;
		else if (entry.type === "message" && entry.message.role === "toolResult") usage = entry.message.usage;
		else if (entry.type === "compaction" || entry.type === "branch_summary") usage = entry.usage;
		if (usage && typeof usage === "object") usages.push(usage as AssistantUsage);
	}
	return usages;
}

/**
 * `context` is pi's `getContextUsage()` for a running session (tokens null right after a compaction, until the
 * next answer); a session read from its file has none, and shows what the last answer reported.
 */
export function usageOf(
	usages: readonly AssistantUsage[],
	context?: { tokens: number | null; contextWindow: number },
	contextWindow = 0,
	others: readonly AssistantUsage[] = [],
): SessionUsage {
	const usage: SessionUsage = {
		input: 0,
		output: 0,
		cacheRead: 0,
		cacheWrite: 0,
		cost: 0,
		contextTokens: null,
		contextWindow: context?.contextWindow ?? contextWindow,
	};
	for (const u of [...usages, ...others]) {
		usage.input += num(u.input);
		usage.output += num(u.output);
		usage.cacheRead += num(u.cacheRead);
		usage.cacheWrite += num(u.cacheWrite);
		usage.cost += num(u.cost?.total);
	}
	const last = usages.at(-1);
	if (context) usage.contextTokens = context.tokens;
	// pi's calculateContextTokens: the provider's total when it gives one.
	else if (last)
		usage.contextTokens =
			num(last.totalTokens) || num(last.input) + num(last.output) + num(last.cacheRead) + num(last.cacheWrite);
	return usage;
}

export function sameUsage(a: SessionUsage | undefined, b: SessionUsage): boolean {
	return (
		a !== undefined &&
		a.input === b.input &&
		a.output === b.output &&
		a.cacheRead === b.cacheRead &&
		a.cacheWrite === b.cacheWrite &&
		a.cost === b.cost &&
		a.contextTokens === b.contextTokens &&
		a.contextWindow === b.contextWindow
	);
}
