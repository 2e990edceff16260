/**
 * Whose install scripts may run, and which ran. The allowance is `extensionHost.allowScripts` in the *global*
 * `<agentDir>/settings.json` only, a list of package names (as in their package.json): a project can never allow
 * scripts, and nothing allows all of them. What happened at each install is recorded in
 * `<agentDir>/.pier-package-scripts.json`, by install directory, for `pier list`.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { atomicWrite, editSettingsFile } from "../settings-file.js";
import type { ScriptedPackage } from "./scripts.js";

const FIELD = "extensionHost.allowScripts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is rejected
const BAD_NAME = /[\u0000-\u0020\u007f*]/;

/** Why `name` cannot be allowed, or undefined. */
export function allowNameProblem(name: string): string | undefined {
	if (name === "") return "is empty";
	if (name.includes("*")) return "has a '*': scripts are allowed by package name, there is no wildcard";
	if (BAD_NAME.test(name)) return "has whitespace or control characters";
	return undefined;
}

export function globalSettingsFile(agentDir: string): string {
	return join(agentDir, "settings.json");
}

/** The names the global settings allow, and a problem per entry that is not a name (ignored). */
export function allowedScriptNames(agentDir: string): { names: Set<string>; problems: string[] } {
	const file = globalSettingsFile(agentDir);
	const names = new Set<string>();
	const problems: string[] = [];
	let settings: unknown;
	try {
		settings = JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return { names, problems };
	}
	const value = (settings as { extensionHost?: { allowScripts?: unknown } } | null)?.extensionHost?.allowScripts;
	if (value === undefined) return { names, problems };
	if (!Array.isArray(value)) {
		problems.push(`${file}: ${FIELD} must be a list of package names (ignored)`);
		return { names, problems };
	}
	value.forEach((name, i) => {
		const problem = typeof name === "string" ? allowNameProblem(name) : "is not a string";
		if (problem) problems.push(`${file}: ${FIELD}[${i}] ${problem} (ignored)`);
		else names.add(name as string);
	});
	return { names, problems };
}

/** Adds names to the global allowance (under pi's settings lock), keeping every other key as it was. */
export async function allowScripts(agentDir: string, add: readonly string[]): Promise<void> {
	for (const name of add) {
		const problem = allowNameProblem(name);
		if (problem) throw new Error(`--allow-scripts ${JSON.stringify(name)} ${problem}`);
	}
	const file = globalSettingsFile(agentDir);
	await editSettingsFile(
		file,
		(message) => new Error(message),
		(settings) => {
			const host = settings.extensionHost ?? {};
			if (!host || typeof host !== "object" || Array.isArray(host))
				throw new Error(`${file}: extensionHost must be an object; fix it first`);
			const current = (host as { allowScripts?: unknown }).allowScripts ?? [];
			if (!Array.isArray(current)) throw new Error(`${file}: ${FIELD} must be a list of package names; fix it first`);
			const next = [...current];
			for (const name of add) if (!next.includes(name)) next.push(name);
			settings.extensionHost = { ...(host as object), allowScripts: next };
		},
	);
}

export interface ScriptRecord {
	ran: Array<{ name: string; scripts: string[] }>;
	skipped: Array<{ name: string; scripts: string[] }>;
}

const recordFile = (agentDir: string) => join(agentDir, ".pier-package-scripts.json");

function readAll(agentDir: string): Record<string, ScriptRecord> {
	try {
		const value = JSON.parse(readFileSync(recordFile(agentDir), "utf8")) as unknown;
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, ScriptRecord>) : {};
	} catch {
		return {};
	}
}

/** What pier did with the scripts of the install at `root`, if pier installed it. */
export function scriptRecord(agentDir: string, root: string): ScriptRecord | undefined {
	const record = readAll(agentDir)[root];
	return record && Array.isArray(record.ran) && Array.isArray(record.skipped) ? record : undefined;
}

/** Replaces (or with undefined, drops) the record of `root`. Callers hold the package lock. */
export function writeScriptRecord(agentDir: string, root: string, record: ScriptRecord | undefined): void {
	const all = readAll(agentDir);
	if (record) all[root] = record;
	else delete all[root];
	mkdirSync(agentDir, { recursive: true });
	atomicWrite(recordFile(agentDir), `${JSON.stringify(all, null, 2)}\n`);
}

export const brief = (p: ScriptedPackage) => ({ name: p.name, scripts: p.scripts });
