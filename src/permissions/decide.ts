/**
 * The decision for one tool call as it will really run: deny wins over ask, ask over allow. A call is checked
 * in units: each simple command of a bash command line, the one path of a path tool (as written, resolved against
 * the cwd, and again with symlinks resolved), or the call itself for every other tool.
 *
 * - deny: some unit matches a deny rule (for a path: either form of it).
 * - ask: some unit matches an ask rule, unless an exact allow rule names that unit (what "allow always" writes:
 *   an answer for good to that very command or path, which a broad allow such as `bash` is not).
 * - allow: every unit is allowed (for a path: both forms), so `echo hi && rm x` is not allowed by `bash(echo *)`.
 * - none: no rule speaks; the call runs as pi would run it.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { toolPath } from "../pi-seams/tool-paths.js";
import { commandParts } from "./shell-parts.js";
import {
	commandMatches,
	isExactCommand,
	isExactPath,
	PATH_TOOLS,
	pathMatches,
	type SourcedRule,
	toolMatches,
} from "./rules.js";

export interface ToolCall {
	tool: string;
	input: unknown;
	/** The session's directory, against which paths and relative patterns resolve. */
	cwd: string;
}

export type Decision = "allow" | "ask" | "deny" | "none";

/** What a call is checked as: one bash part, one path (both forms), or the call itself. */
export type Unit =
	| { kind: "command"; command: string }
	| { kind: "path"; path: string; real: string }
	| { kind: "call" };

export interface Verdict {
	decision: Decision;
	/** The rule that decided (for allow: the one that allowed the first unit). */
	rule?: SourcedRule;
	source?: string;
	/** What the call is about, as the audit trail and the dialog show it: the command, the path, or the tool. */
	subject: string;
	/** For an ask: the units an ask rule caught, which "allow always" / "reject always" write rules for. */
	asked?: Unit[];
}

/**
 * The file with its symlinks resolved; for a file that does not exist yet, its nearest existing parent resolved
 * and the rest appended (a new file under a symlinked directory lands where the link points).
 */
export function realPath(path: string): string {
	const rest: string[] = [];
	let dir = path;
	for (;;) {
		if (existsSync(dir)) {
			try {
				return join(realpathSync.native(dir), ...rest.reverse());
			} catch {
				return path;
			}
		}
		const up = dirname(dir);
		if (up === dir) return path;
		rest.push(basename(dir));
		dir = up;
	}
}

function field(input: unknown, key: string): unknown {
	return input !== null && typeof input === "object" ? (input as Record<string, unknown>)[key] : undefined;
}

/** The units of a call and the subject that names it. */
export function unitsOf(call: ToolCall): { units: Unit[]; subject: string } {
	if (call.tool === "bash") {
		const command = String(field(call.input, "command") ?? "");
		// A command with nothing to run (empty, a comment) is still one unit: a bare `bash` rule speaks to it.
		const parts = commandParts(command);
		const commands = parts.length > 0 ? parts : [command.trim()];
		return { units: commands.map((part) => ({ kind: "command", command: part })), subject: command };
	}
	const pathTool = PATH_TOOLS.get(call.tool);
	if (pathTool) {
		const raw = field(call.input, pathTool.field) ?? pathTool.fallback ?? "";
		const path = toolPath(String(raw), call.cwd);
		return { units: [{ kind: "path", path, real: realPath(path) }], subject: path };
	}
	return { units: [{ kind: "call" }], subject: call.tool };
}

function hits(rule: SourcedRule, tool: string, unit: Unit, cwd: string, every: boolean): boolean {
	if (!toolMatches(rule.tool, tool)) return false;
	if (rule.pattern === undefined) return true;
	switch (unit.kind) {
		case "command":
			return commandMatches(rule.pattern, unit.command);
		case "path": {
			const forms = [unit.path, unit.real];
			const match = (p: string) => pathMatches(rule.pattern!, cwd, p);
			return every ? forms.every(match) : forms.some(match);
		}
		default:
			return false;
	}
}

/** An allow rule naming exactly this unit (no glob): it answers an ask rule for good. */
function exactlyAllowed(rule: SourcedRule, tool: string, unit: Unit, cwd: string): boolean {
	if (rule.list !== "allow" || !toolMatches(rule.tool, tool)) return false;
	switch (unit.kind) {
		case "command":
			return rule.pattern !== undefined && isExactCommand(rule.pattern) && commandMatches(rule.pattern, unit.command);
		case "path":
			return rule.pattern !== undefined && isExactPath(rule.pattern) && hits(rule, tool, unit, cwd, true);
		default:
			return rule.pattern === undefined && rule.tool === tool;
	}
}

/** An allow for a path needs both of its forms allowed, each by some allow rule. */
function allowedBy(rules: SourcedRule[], tool: string, unit: Unit, cwd: string): SourcedRule | undefined {
	const allows = rules.filter((r) => r.list === "allow");
	if (unit.kind !== "path") return allows.find((r) => hits(r, tool, unit, cwd, false));
	const forPath = (p: string) => allows.find((r) => hits(r, tool, { ...unit, path: p, real: p }, cwd, false));
	const lexical = forPath(unit.path);
	return lexical && forPath(unit.real) ? lexical : undefined;
}

export function decide(call: ToolCall, rules: SourcedRule[]): Verdict {
	const { units, subject } = unitsOf(call);
	const { tool, cwd } = call;
	const verdict = (decision: Decision, rule?: SourcedRule, asked?: Unit[]): Verdict => ({
		decision,
		subject,
		...(rule ? { rule, source: rule.source } : {}),
		...(asked ? { asked } : {}),
	});
	for (const unit of units) {
		const deny = rules.find((r) => r.list === "deny" && hits(r, tool, unit, cwd, false));
		if (deny) return verdict("deny", deny);
	}
	let ask: SourcedRule | undefined;
	const asked: Unit[] = [];
	for (const unit of units) {
		const rule = rules.find((r) => r.list === "ask" && hits(r, tool, unit, cwd, false));
		if (!rule || rules.some((r) => exactlyAllowed(r, tool, unit, cwd))) continue;
		ask ??= rule;
		asked.push(unit);
	}
	if (ask) return verdict("ask", ask, asked);
	const allows = units.map((unit) => allowedBy(rules, tool, unit, cwd));
	if (units.length > 0 && allows.every((rule) => rule !== undefined)) return verdict("allow", allows[0]);
	return verdict("none");
}

/** The rule "allow always" / "reject always" writes for an asked unit. */
export function ruleFor(tool: string, unit: Unit): string {
	switch (unit.kind) {
		case "command":
			return `${tool}(${unit.command})`;
		case "path":
			return `${tool}(${unit.path})`;
		default:
			return tool;
	}
}
