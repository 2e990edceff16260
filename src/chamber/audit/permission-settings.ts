/**
 * The permission rules as the Permissions view reads and edits them: `"permissions": {"allow", "ask", "deny"}`
 * in the global `<agentDir>/settings.json` and in a trusted project's `.pi/settings.json` (which may only add
 * `ask` and `deny`). Edits go through `editSettingsFile`: under pi's settings lock, every other key kept.
 * The permission engine (src/permissions/) decides what the rules mean; this file only keeps them.
 */
import { parseRule } from "../../permissions/rules.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { jsonSyntaxProblem } from "../../extensions/json-syntax.js";
import { projectConfigDir } from "../../extensions/project-dir.js";
import { editSettingsFile } from "../../extensions/settings-file.js";
import { PERMISSION_LISTS, type PermissionList, type PermissionSource } from "./wire.js";

/** Longer than any rule a person writes; a longer one is refused, not stored. */
export const RULE_MAX_CHARS = 1000;

export class PermissionSettingsError extends Error {
	override name = "PermissionSettingsError";
	constructor(
		readonly code: "bad_rule" | "project_allow" | "settings_unavailable" | "not_found",
		message: string,
	) {
		super(message);
	}
}

/** Why `rule` is not a rule, as the permission engine reads rules (src/permissions/rules.ts), or undefined. */
export function ruleSyntaxProblem(rule: string): string | undefined {
	if (rule.length > RULE_MAX_CHARS)
		return `a rule is at most ${RULE_MAX_CHARS} characters (this one has ${rule.length})`;
	const parsed = parseRule(rule);
	return "error" in parsed ? parsed.error : undefined;
}

export const globalSettingsFile = (agentDir: string): string => join(agentDir, "settings.json");
export const projectSettingsFile = (cwd: string): string => join(projectConfigDir(cwd), "settings.json");

const field = (list?: string) => `permissions${list ? `.${list}` : ""}`;

/** The rules of one parsed settings object; what is not a rule list is a problem naming the file and field. */
export function rulesOf(settings: unknown, scope: "global" | "project", file: string): PermissionSource {
	const source: PermissionSource = { scope, file, allow: [], ask: [], deny: [], problems: [] };
	const value = (settings as { permissions?: unknown } | null | undefined)?.permissions;
	if (value === undefined) return source;
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		source.problems.push(`${file}: ${field()} must be an object of "allow", "ask" and "deny" lists (ignored)`);
		return source;
	}
	for (const list of PERMISSION_LISTS) {
		const rules = (value as Record<string, unknown>)[list];
		if (rules === undefined) continue;
		if (!Array.isArray(rules)) {
			source.problems.push(`${file}: ${field(list)} must be a list of rule strings (ignored)`);
			continue;
		}
		rules.forEach((rule, index) => {
			if (typeof rule === "string") source[list].push(rule);
			else source.problems.push(`${file}: ${field(list)}[${index}] is not a string (ignored)`);
		});
	}
	if (scope === "project" && source.allow.length > 0)
		source.problems.push(
			`${file}: ${field("allow")}: a project's settings may only add ask and deny rules; its allow rules are ignored`,
		);
	return source;
}

export function readRules(scope: "global" | "project", file: string): PermissionSource {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return rulesOf({}, scope, file);
		return { ...rulesOf({}, scope, file), problems: [`${file}: unreadable (${(error as Error).message})`] };
	}
	if (text.trim() === "") return rulesOf({}, scope, file);
	try {
		return rulesOf(JSON.parse(text), scope, file);
	} catch (error) {
		return { ...rulesOf({}, scope, file), problems: [`${file}: not valid JSON (${jsonSyntaxProblem(text, error)})`] };
	}
}

/**
 * Adds `rule` to `list` (present already: nothing changes) or removes it (absent: not_found), keeping every
 * other key of the file and of `permissions`. Empty lists and an empty `permissions` are left out.
 */
export async function changeRule(
	scope: "global" | "project",
	file: string,
	list: PermissionList,
	rule: string,
	action: "add" | "remove",
): Promise<PermissionSource> {
	if (action === "add") {
		const problem = ruleSyntaxProblem(rule);
		if (problem) throw new PermissionSettingsError("bad_rule", `/rule: ${problem}`);
		if (scope === "project" && list === "allow")
			throw new PermissionSettingsError(
				"project_allow",
				`a project's settings may only add ask and deny rules: an allow rule belongs in the global ${"settings.json"} (scope "global")`,
			);
	}
	const fail = (message: string) => new PermissionSettingsError("settings_unavailable", message);
	return editSettingsFile(file, fail, (settings) => {
		const value = settings.permissions;
		if (value !== undefined && (value === null || typeof value !== "object" || Array.isArray(value)))
			throw fail(`${file}: ${field()} must be an object; fix it first`);
		const permissions = { ...((value as Record<string, unknown> | undefined) ?? {}) };
		const current = permissions[list];
		if (current !== undefined && !Array.isArray(current))
			throw fail(`${file}: ${field(list)} must be a list of rule strings; fix it first`);
		const rules = [...((current as unknown[] | undefined) ?? [])];
		if (action === "add") {
			if (!rules.includes(rule)) rules.push(rule);
		} else {
			const at = rules.indexOf(rule);
			if (at < 0)
				throw new PermissionSettingsError("not_found", `${file}: ${field(list)} has no rule ${JSON.stringify(rule)}`);
			rules.splice(at, 1);
		}
		if (rules.length > 0) permissions[list] = rules;
		else delete permissions[list];
		if (Object.keys(permissions).length > 0) settings.permissions = permissions;
		else delete settings.permissions;
		return rulesOf(settings, scope, file);
	});
}
