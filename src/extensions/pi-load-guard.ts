/**
 * The second barrier between pi's loader and code pier did not allow; settings patterns (trust-settings.ts) are
 * the first, and they fail open: pi drops them when it cannot read a settings file, minimatch skips dot-names, a
 * directory name can be a glob.
 *
 * pi's resource loader asks its package manager what to load and imports every enabled path it gets back, in the
 * same call. That answer is checked here, path by path and by real path, before anything is imported; a refused
 * path is disabled, so pi never reads it. src/pi-seams/package-manager.ts hands each answer over, with the settings
 * manager it was read with: only answers read with a settings manager pier made are checked.
 */
import { realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import type { SettingsManager } from "@earendil-works/pi-coding-agent";
import { checkPackageManagerAnswers, type ResolvedPaths } from "../pi-seams/package-manager.js";
import { projectConfigDir } from "./project-dir.js";
import { MANIFEST_FILE } from "./manifest.js";
import { enclosingManifestDir } from "./manifest-dirs.js";
import { projectAgentsSkillDirs, projectContentAllowed, type TrustDecision } from "./trust.js";
import { loadRefusal, readExtensionPolicy } from "./policy/policy.js";
import { inProcessName, inProcessSubject } from "./policy/subjects.js";

export interface LoadScope {
	cwd: string;
	agentDir: string;
	trust: () => TrustDecision;
	/**
	 * A session's loads (not `pier list`'s looks): the package a path lies in, for the extension policy, whose
	 * refusals are then audited. Without it the policy still refuses, by path and name, unaudited.
	 */
	packageOf?: (path: string) => string | undefined;
}

interface Guard {
	scope: LoadScope;
	/** Every line said so far (each is said once per settings manager) and the ones not yet taken. */
	said: Set<string>;
	pending: string[];
}

const guards = new WeakMap<object, Guard>();
let installed = false;

/** From now on, what pi's loader would import with `settings` is checked against `scope` first. */
export function guardPiLoads(settings: SettingsManager, scope: LoadScope): void {
	install();
	guards.set(settings, { scope, said: new Set(), pending: [] });
}

/** The one-line refusals not yet shown to the user, for the session's diagnostics. */
export function takeRefusals(settings: SettingsManager): string[] {
	const guard = guards.get(settings);
	if (!guard) return [];
	return guard.pending.splice(0);
}

function install() {
	if (installed) return;
	installed = true;
	checkPackageManagerAnswers(checked);
}

function checked(settings: object, paths: ResolvedPaths, fromCli: boolean): ResolvedPaths {
	const guard = guards.get(settings);
	if (!guard) return paths;
	for (const resource of paths.extensions) {
		if (!resource.enabled) continue;
		const byTrust = refusal(resource.path, guard.scope, fromCli);
		const why = byTrust ?? policyRefusal(resource.path, guard.scope, false);
		if (!why) continue;
		resource.enabled = false;
		const line = `pi's loader will not load ${resource.path}: ${why}`;
		if (!guard.said.has(line)) {
			// Each refusal of a session's load is audited once, when it is first said.
			if (!byTrust && guard.scope.packageOf) policyRefusal(resource.path, guard.scope, true);
			guard.said.add(line);
			guard.pending.push(line);
		}
	}
	return paths;
}

/** The extension policy's word on a file pi would import (every origin, `-e` included). */
function policyRefusal(path: string, scope: LoadScope, audit: boolean): string | undefined {
	const absolute = resolve(scope.cwd, path);
	return loadRefusal(readExtensionPolicy(scope.agentDir), inProcessSubject(absolute, scope.packageOf?.(absolute)), {
		agentDir: scope.agentDir,
		name: inProcessName(absolute),
		audit,
	});
}

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function isInside(path: string, root: string): boolean {
	return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** Why pi's loader must not import `path` for this session, if it must not. */
export function refusal(path: string, scope: LoadScope, fromCli: boolean): string | undefined {
	const candidates = [...new Set([resolve(scope.cwd, path), realOrSelf(resolve(scope.cwd, path))])];
	for (const candidate of candidates) {
		const manifestDir = enclosingManifestDir(candidate);
		if (manifestDir)
			return `it is inside the pier extension directory ${manifestDir} (it has ${MANIFEST_FILE}), which pier runs itself`;
	}
	// `-e` is the user's own choice, made for this run; only the project's own files are gated.
	if (fromCli || projectContentAllowed(scope.trust())) return undefined;
	const roots = projectRoots(scope.cwd);
	// The user's agent directory can sit inside the project's .pi (a session in ~): it is still the user's.
	const agentDirs = [resolve(scope.agentDir), realOrSelf(resolve(scope.agentDir))];
	for (const candidate of candidates) {
		if (agentDirs.some((a) => isInside(candidate, a))) continue;
		const root = roots.find((r) => isInside(candidate, r));
		if (root) return `it is in ${root} and the project is not trusted (trust it with \`pier trust\`)`;
	}
	return undefined;
}

/** The project's directories pi reads resources from, by name and by real path. */
function projectRoots(cwd: string): string[] {
	const lexical = [projectConfigDir(cwd), projectConfigDir(realOrSelf(cwd))];
	for (const skills of projectAgentsSkillDirs(cwd)) lexical.push(dirname(skills));
	return [...new Set([...lexical, ...lexical.map(realOrSelf)])];
}
