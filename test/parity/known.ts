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

/** The commands of pi 1.6's built-in extensions (llama.cpp, mcp), as pi lists them after every other command. */
const PI_BUILTIN_COMMANDS = [
	{
		name: "llama",
		description: "Manage llama.cpp router models",
		source: "extension",
		sourceInfo: { path: "builtin:llama.cpp", source: "builtin", scope: "temporary", origin: "top-level" },
	},
	{
		name: "mcp",
		description: "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure",
		source: "extension",
		sourceInfo: { path: "builtin:mcp", source: "builtin", scope: "temporary", origin: "top-level" },
	},
];

/** A `get_commands` response line with pi's built-in commands appended; any other line as it is. */
function withBuiltinCommands(line: string): string {
	if (!line.includes('"command":"get_commands"')) return line;
	const frame = JSON.parse(line) as { data?: { commands?: unknown[] } };
	if (!frame.data?.commands) return line;
	frame.data.commands.push(...PI_BUILTIN_COMMANDS);
	return JSON.stringify(frame);
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
	{
		example: "*",
		modes: ["rpc"],
		parts: ["stdout"],
		reason:
			"pier does not load pi 1.6's built-in extensions (llama.cpp, mcp, codemode, tool-search) yet: MCP starts " +
			"the user's servers, and the issue 'MCP in pier' brings them in inside pier's trust, views and tests",
		rewrite: (pier) => pier.split("\n").map(withBuiltinCommands).join("\n"),
	},
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
