/**
 * Permission rules in Claude Code's form with pi's tool names: `tool` or `tool(pattern)`. What a pattern is
 * matched against depends on the tool: bash's command (each simple command of it, see shell-parts.ts), the path
 * of the path tools, nothing for the others (only a bare name matches them).
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { Minimatch, minimatch } from "minimatch";

/** The three lists of `"permissions"` in settings.json, strongest first. */
export type RuleList = "deny" | "ask" | "allow";
export const RULE_LISTS: readonly RuleList[] = ["deny", "ask", "allow"];

export interface Rule {
	tool: string;
	pattern?: string;
}

/** A rule as it stands in one settings file. */
export interface SourcedRule extends Rule {
	/** As the user wrote it: what refusals, dialogs and the audit trail name. */
	text: string;
	list: RuleList;
	/** The settings file it came from. */
	source: string;
}

/** pi's built-in tools, lower case; `Bash(…)` as Claude Code spells it means pi's `bash`. */
export const BUILTIN_TOOLS = new Set(["bash", "read", "write", "edit", "grep", "find", "ls"]);
/** The tools whose pattern is matched against a path, and the input field that holds it (with its default). */
export const PATH_TOOLS: ReadonlyMap<string, { field: string; fallback?: string }> = new Map([
	["read", { field: "path" }],
	["write", { field: "path" }],
	["edit", { field: "path" }],
	["grep", { field: "path", fallback: "." }],
	["find", { field: "path", fallback: "." }],
	["ls", { field: "path", fallback: "." }],
]);

const RULE = /^([A-Za-z0-9_.*-]+)(?:\(([\s\S]*)\))?$/;

/** `tool` or `tool(pattern)`; an error says what is wrong with the text. */
export function parseRule(text: string): Rule | { error: string } {
	if (typeof text !== "string") return { error: "a rule must be a string such as bash(npm test:*)" };
	const trimmed = text.trim();
	if (trimmed === "") return { error: "an empty rule; write a tool name or tool(pattern)" };
	const m = RULE.exec(trimmed);
	if (!m) return { error: `"${text}" is not a rule: write a tool name or tool(pattern), e.g. bash(rm *)` };
	const name = m[1]!;
	const tool = BUILTIN_TOOLS.has(name.toLowerCase()) ? name.toLowerCase() : name;
	if (m[2] === undefined) return { tool };
	const pattern = m[2].trim();
	if (pattern === "") return { error: `"${text}" has an empty pattern: write ${tool} alone for every call` };
	if (!BUILTIN_TOOLS.has(tool))
		return { error: `"${text}": only pi's built-in tools take a pattern; write ${tool} alone for every call` };
	if (PATH_TOOLS.has(tool) && pattern.endsWith(":*"))
		return { error: `"${text}": ":*" is for bash commands; a path pattern is a glob such as src/**` };
	return { tool, pattern };
}

/** The rule's tool names this call's tool: exactly, by glob (`mcp__github__*`), or a whole MCP server (`mcp__github`). */
export function toolMatches(ruleTool: string, tool: string): boolean {
	if (ruleTool === tool) return true;
	if (ruleTool.includes("*")) return minimatch(tool, ruleTool);
	return ruleTool.startsWith("mcp__") && !ruleTool.slice(5).includes("__") && tool.startsWith(`${ruleTool}__`);
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/**
 * A command pattern: `prefix:*` is the prefix followed by nothing or by a non-word character (`npm run test:*`
 * takes `npm run test`, `npm run test:unit` and `npm run test -- x`, not `npm run tests`); otherwise `*` is any
 * text (`rm *`) and the rest is literal, whitespace collapsed, matched against the whole command.
 */
export function commandMatches(pattern: string, command: string): boolean {
	const normal = pattern.replace(/\s+/g, " ").trim();
	if (normal.endsWith(":*")) {
		const prefix = normal.slice(0, -2).trimEnd();
		if (!command.startsWith(prefix)) return false;
		const next = command[prefix.length];
		return next === undefined || !/[A-Za-z0-9_]/.test(next);
	}
	const source = normal.split("*").map(escapeRegExp).join("[\\s\\S]*");
	return new RegExp(`^${source}$`).test(command);
}

/** An exact command pattern (no glob): what "allow always" writes, and what answers an ask for good. */
export function isExactCommand(pattern: string): boolean {
	return !pattern.includes("*");
}

/** A path pattern as an absolute glob: `~/` is the home directory, a relative one is under the session's cwd. */
export function absolutePattern(pattern: string, cwd: string): string {
	if (pattern === "~" || pattern.startsWith("~/")) return join(homedir(), pattern.slice(1));
	if (isAbsolute(pattern)) return pattern;
	return join(cwd, pattern.startsWith("./") ? pattern.slice(2) : pattern);
}

/** A glob over absolute paths; `dir/**` also takes `dir` itself. Dot files count (`**` reaches `.env`). */
export function pathMatches(pattern: string, cwd: string, path: string): boolean {
	const glob = absolutePattern(pattern, cwd);
	if (minimatch(path, glob, { dot: true })) return true;
	return glob.endsWith("/**") && path === glob.slice(0, -3);
}

export function isExactPath(pattern: string): boolean {
	return !new Minimatch(pattern).hasMagic();
}

/** A rule's text for a pattern pier writes itself ("allow always", "reject always"). */
export function ruleText(tool: string, pattern?: string): string {
	return pattern === undefined ? tool : `${tool}(${pattern})`;
}
