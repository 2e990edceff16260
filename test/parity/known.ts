/**
 * Differences from pi that pier makes on purpose, each with its reason (docs/parity.md lists the same).
 * An entry is a rewrite of pier's normalised output for one example, modes and parts: when the rewritten
 * text equals pi's, the difference is known (shown as such, and the subset test passes); anything else
 * still differs.
 */
import type { Comparable } from "./normalise.js";
import type { CaseResult, Mode, PartDifference } from "./suite.js";

export interface KnownDifference {
	example: string;
	modes: Mode[];
	parts: Array<keyof Comparable>;
	reason: string;
	/** pier's text → what it would be without the on-purpose difference. */
	rewrite: (pier: string) => string;
}

const ALL_MODES: Mode[] = ["text", "json", "rpc"];

export const KNOWN_DIFFERENCES: KnownDifference[] = [
	{
		example: "subagent",
		modes: ALL_MODES,
		parts: ["stdout", "sessions"],
		reason:
			"subagent runs the program that started it (pier) with --mode json and keeps the child's stderr in its " +
			"tool result: there it holds pier's on-purpose `pier: model …` line",
		rewrite: (pier) => pier.replace(/"stderr":"pier: model [^"\\]*\\n"/g, '"stderr":""'),
	},
];

/** The entry that explains pier's part, if one does. */
export function explain(example: string, mode: Mode, part: keyof Comparable, pi: string, pier: string) {
	return KNOWN_DIFFERENCES.find(
		(k) =>
			(k.example === "*" || k.example === example) &&
			k.modes.includes(mode) &&
			k.parts.includes(part) &&
			k.rewrite(pier) === pi,
	);
}

/** Every difference of a case's result that no entry explains. */
export function unlisted(result: CaseResult): PartDifference[] {
	const modes = [...(result.print?.modes ?? []), ...(result.rpc ? [result.rpc] : [])];
	return modes.flatMap((m) => m.differences).filter((d) => d.known === undefined);
}
