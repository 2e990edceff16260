/**
 * The rules in force for a session: `"permissions"` of the global settings.json (agent directory), then of a
 * trusted project's `.pi/settings.json`, which can only add `ask` and `deny` (an `allow` there would let a cloned
 * repository open itself up). Read at each call, so an edit applies to the next tool call.
 *
 * A rule pier cannot read never loosens anything: a settings file that is not JSON, or an `ask`/`deny` entry that
 * is not a rule, is a `blocking` problem (the gate refuses every call, naming the file, until it is fixed). A bad
 * `allow` entry only allows less, so it is a diagnostic.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentDir as defaultAgentDir } from "../agent-dir.js";
import { projectConfigDir } from "../extensions/project-dir.js";
import { parseRule, RULE_LISTS, type RuleList, type SourcedRule } from "./rules.js";

export interface LoadedRules {
	rules: SourcedRule[];
	/** Told once, at session start (an ignored project `allow`, a bad `allow` entry). */
	diagnostics: string[];
	/** Problems that make the gate refuse every call: the rules meant to stop something cannot be read. */
	blocking: string[];
}

export const globalSettingsFile = (agentDir: string = defaultAgentDir()): string => join(agentDir, "settings.json");
export const projectSettingsFile = (cwd: string): string => join(projectConfigDir(cwd), "settings.json");

function readPermissions(file: string, into: LoadedRules, lists: readonly RuleList[], globalFile: string): void {
	if (!existsSync(file)) return;
	let settings: unknown;
	try {
		const text = readFileSync(file, "utf8");
		settings = text.trim() === "" ? {} : JSON.parse(text);
	} catch (error) {
		into.blocking.push(`${file} cannot be read (${(error as Error).message}); fix it to run tools again`);
		return;
	}
	if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
		into.blocking.push(`${file} must hold a JSON object; fix it to run tools again`);
		return;
	}
	const permissions = (settings as Record<string, unknown>).permissions;
	if (permissions === undefined) return;
	if (permissions === null || typeof permissions !== "object" || Array.isArray(permissions)) {
		into.blocking.push(`${file}: "permissions" must be an object {"allow": [], "ask": [], "deny": []}`);
		return;
	}
	for (const [key, value] of Object.entries(permissions)) {
		const list = key as RuleList;
		if (!RULE_LISTS.includes(list)) {
			// Claude Code's other keys (defaultMode, additionalDirectories) mean nothing here: say so, stop nothing.
			into.diagnostics.push(`${file}: "permissions.${key}" is not used by pier (it reads allow, ask and deny)`);
			continue;
		}
		if (!lists.includes(list)) {
			into.diagnostics.push(
				`${file}: "permissions.${key}" is ignored: a project's settings can only add ask and deny rules (allow rules go in ${globalFile})`,
			);
			continue;
		}
		if (!Array.isArray(value)) {
			const problem = `${file}: "permissions.${key}" must be a list of rules such as "bash(rm *)"`;
			(list === "allow" ? into.diagnostics : into.blocking).push(problem);
			continue;
		}
		for (const entry of value) {
			const parsed = parseRule(entry as string);
			if ("error" in parsed) {
				const problem = `${file}: "permissions.${key}": ${parsed.error}`;
				(list === "allow" ? into.diagnostics : into.blocking).push(problem);
				continue;
			}
			into.rules.push({ ...parsed, text: String(entry).trim(), list, source: file });
		}
	}
}

/** The rules for a session in `cwd`; the project's count only when it is trusted. */
export function loadRules(cwd: string, trusted: boolean, agentDir: string = defaultAgentDir()): LoadedRules {
	const loaded: LoadedRules = { rules: [], diagnostics: [], blocking: [] };
	const globalFile = globalSettingsFile(agentDir);
	readPermissions(globalFile, loaded, RULE_LISTS, globalFile);
	if (trusted) readPermissions(projectSettingsFile(cwd), loaded, ["ask", "deny"], globalFile);
	return loaded;
}
