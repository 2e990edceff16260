/**
 * The second barrier between pi's loader and code pier did not allow; settings patterns (trust-settings.ts) are
 * the first, and they fail open: pi drops them when it cannot read a settings file, minimatch skips dot-names, a
 * directory name can be a glob.
 *
 * pi 0.74.2's resource loader asks its `DefaultPackageManager` what to load (`resolve()` for settings, packages
 * and auto-discovery; `resolveExtensionSources()` for `-e`) and imports every enabled path it gets back, in the
 * same call. That answer is checked here, path by path and by real path, before anything is imported; a refused
 * path is disabled, so pi never reads it. `extensionsOverride` would be too late: it runs after import.
 *
 * The package manager is a class field of pi's loader, made inside `createAgentSessionServices` and used at once,
 * so the check sits on pi's prototype and applies only to package managers reading a settings manager pier made
 * (revisit on upgrade).
 */
import { realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { DefaultPackageManager, type SettingsManager } from "@earendil-works/pi-coding-agent";
import { projectConfigDir } from "./project-dir.js";
import { MANIFEST_FILE } from "./manifest.js";
import { enclosingManifestDir } from "./manifest-dirs.js";
import { projectAgentsSkillDirs, projectContentAllowed, type TrustDecision } from "./trust.js";

export interface LoadScope {
	cwd: string;
	agentDir: string;
	trust: () => TrustDecision;
}

interface Guard {
	scope: LoadScope;
	/** Every line said so far (each is said once per settings manager) and the ones not yet taken. */
	said: Set<string>;
	pending: string[];
}

type Resolved = Awaited<ReturnType<DefaultPackageManager["resolve"]>>;

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
	const proto = DefaultPackageManager.prototype;
	const resolvePaths = proto.resolve;
	const resolveSources = proto.resolveExtensionSources;
	proto.resolve = async function (this: DefaultPackageManager, ...args: Parameters<typeof resolvePaths>) {
		return checked(this, await resolvePaths.apply(this, args), false);
	};
	proto.resolveExtensionSources = async function (
		this: DefaultPackageManager,
		...args: Parameters<typeof resolveSources>
	) {
		return checked(this, await resolveSources.apply(this, args), true);
	};
}

function checked(manager: DefaultPackageManager, paths: Resolved, fromCli: boolean): Resolved {
	const settings = (manager as unknown as { settingsManager?: object }).settingsManager;
	// A pi whose package manager no longer holds its settings manager would make every guard miss: fail closed.
	if (!settings || typeof settings !== "object")
		throw new Error("pier: pi's package manager has no settingsManager (pi changed?); not loading extensions");
	const guard = guards.get(settings);
	if (!guard) return paths;
	for (const resource of paths.extensions) {
		if (!resource.enabled) continue;
		const why = refusal(resource.path, guard.scope, fromCli);
		if (!why) continue;
		resource.enabled = false;
		const line = `pi's loader will not load ${resource.path}: ${why}`;
		if (!guard.said.has(line)) {
			guard.said.add(line);
			guard.pending.push(line);
		}
	}
	return paths;
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
