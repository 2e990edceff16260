/**
 * How pi 0.74.2 (which has no project trust) is told what pier decided:
 *
 * - Settings: pi reads both scopes through a storage wrapper. An untrusted project's scope is presented as pier's
 *   own exclusions only, none of the project's keys (not `shellPath`, `shellCommandPrefix`, `npmCommand`,
 *   `packages`, `extensionHost`, …), and without reading the project's file at all: had pi's own storage failed
 *   on it (a directory, a committed lock directory), pi would have used `{}`, exclusions gone. The exclusions
 *   (`"!**"` for extensions, skills, prompts and themes) switch off pi's auto-discovery of `.pi/*` and
 *   `.agents/skills` before anything is loaded.
 * - Manifest directories (holding `pi-extension.json`) are pier's alone: every scope's `extensions` list gains
 *   exclusions for them, and list entries that point into one are dropped, so pi's loader never runs their
 *   `index.js` in Node next to pier's sandbox.
 * - Patterns are not the only barrier: every settings manager made here also has pi's resolved extension paths
 *   checked before import (pi-load-guard.ts), which catches what patterns miss.
 * - Writes keep the file as it is on disk except for what pi changed; pier's exclusions are never written.
 * - Resource loader overrides drop what settings cannot switch off: project themes (pi loads `.pi/themes`
 *   regardless), `.pi/SYSTEM.md`, `.pi/APPEND_SYSTEM.md` and the project's context files.
 *
 * The decision is read at each use, not once: a reload may re-decide it (trust.ts `decisionAtReload`).
 *
 * pi exports `SettingsManager.fromStorage` but not its file storage (with pi's locking); src/pi-seams/
 * settings-storage.ts gives pier that storage.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { type CreateAgentSessionServicesOptions, SettingsManager } from "@earendil-works/pi-coding-agent";
import { projectConfigDir } from "./project-dir.js";
import { enclosingManifestDir, manifestDirsIn } from "./manifest-dirs.js";
import { piPackageEntries } from "./packages/pi-view.js";
import type { PackageResolution } from "./packages/resolve.js";
import { guardPiLoads, type LoadScope } from "./pi-load-guard.js";
import { packageOfPath } from "./policy/subjects.js";
import { piFileSettingsStorage, type SettingsStorage } from "../pi-seams/settings-storage.js";
import {
	isProjectContextFile,
	type LiveTrust,
	projectAgentsSkillDirs,
	projectContentAllowed,
	trustNow,
} from "./trust.js";

export { enclosingManifestDir, manifestDirsIn } from "./manifest-dirs.js";

type SettingsScope = Parameters<SettingsStorage["withLock"]>[0];
type Settings = Record<string, unknown>;

const EXCLUDE_ALL = "!**";
const UNTRUSTED_PROJECT_VIEW: Settings = {
	extensions: [EXCLUDE_ALL],
	skills: [EXCLUDE_ALL],
	prompts: [EXCLUDE_ALL],
	themes: [EXCLUDE_ALL],
};

/** pi override patterns that keep its loader out of these directories (`!` for every file, `-` beats a `+`). */
function exclusionsFor(dirs: readonly string[]): string[] {
	return dirs.flatMap((dir) => [`!${globEscape(dir)}/**`, `-${join(dir, "index.ts")}`, `-${join(dir, "index.js")}`]);
}

/** A path as a minimatch pattern matching only itself (a directory may be named `q[1]`). */
const globEscape = (path: string) => path.replace(/[\\*?[\]{}()!+@]/g, "\\$&");

export interface TrustedSettingsOptions {
	cwd: string;
	agentDir: string;
	trust: LiveTrust;
	/**
	 * pier's resolution of the configured packages: pi is shown each loading package as its directory, with only
	 * the TypeScript/JavaScript files pier enabled. Without it pi sees no packages at all, so its loader never
	 * installs one itself; `"as-configured"` shows the entries as written (what pier's resolver reads).
	 */
	packages?: PackageResolution | "as-configured";
}

/** pi's settings for `cwd` as pier's trust decision and manifest directories allow. */
export function settingsForTrust(options: TrustedSettingsOptions): SettingsManager {
	const inner = piFileSettingsStorage(options.cwd, options.agentDir);
	// pi 1.6 asks the settings manager whether the project is trusted before it reads the project's own files
	// (`.pi/mcp.json`, whose servers are commands it runs) and answers `ctx.isProjectTrusted()` from it: it must say
	// what pier decided, never pi's default of "trusted".
	const settings = SettingsManager.fromStorage(new TrustedSettingsStorage(inner, options), {
		projectTrusted: projectContentAllowed(trustNow(options.trust)),
	});
	guardPiLoads(settings, {
		cwd: options.cwd,
		agentDir: options.agentDir,
		trust: () => trustNow(options.trust),
		...policyScope(options),
	});
	return settings;
}

/**
 * A session's view (its packages resolved) loads, so the extension policy is told which package a path lies in
 * and its refusals are audited; a view of settings as configured only looks.
 */
function policyScope(options: TrustedSettingsOptions): Pick<LoadScope, "packageOf"> {
	if (options.packages === undefined || options.packages === "as-configured") return {};
	return {
		packageOf: (path) => {
			const packages = options.packages;
			return packages && packages !== "as-configured" ? packageOfPath(packages, path) : undefined;
		},
	};
}

/** After a new trust decision (a reload), pi's settings manager says it too. */
export function syncProjectTrust(settings: SettingsManager, trust: LiveTrust): void {
	settings.setProjectTrusted(projectContentAllowed(trustNow(trust)));
}

class TrustedSettingsStorage implements SettingsStorage {
	constructor(
		private readonly inner: SettingsStorage,
		private readonly options: TrustedSettingsOptions,
	) {}

	withLock(scope: SettingsScope, fn: (current: string | undefined) => string | undefined): void {
		if (scope === "project" && !projectContentAllowed(trustNow(this.options.trust))) {
			this.withUntrustedProject(fn);
			return;
		}
		this.inner.withLock(scope, (current) => {
			const original = parseObject(current);
			const presented = this.present(scope, original ?? {});
			const untouched = current === undefined && Object.keys(presented).length === 0;
			const next = fn(untouched ? undefined : JSON.stringify(presented, null, 2));
			if (next === undefined) return undefined;
			// A file pier cannot read is not overwritten with a guess at it (pi records the error).
			if (original === undefined && current !== undefined) {
				throw new Error(`${this.fileOf(scope)} is not a JSON object; fix it before pi can change settings in it`);
			}
			return JSON.stringify(applyChanges(original ?? {}, presented, parseObject(next) ?? {}), null, 2);
		});
	}

	/** Reads never reach the project's file; a write by pi (`pi config`) is applied to it as pi made it. */
	private withUntrustedProject(fn: (current: string | undefined) => string | undefined): void {
		const presented = structuredClone(UNTRUSTED_PROJECT_VIEW);
		const next = fn(JSON.stringify(presented, null, 2));
		if (next === undefined) return;
		this.inner.withLock("project", (current) => {
			const original = parseObject(current);
			if (original === undefined && current !== undefined) {
				throw new Error(`${this.fileOf("project")} is not a JSON object; fix it before pi can change settings in it`);
			}
			return JSON.stringify(applyChanges(original ?? {}, presented, parseObject(next) ?? {}), null, 2);
		});
	}

	private fileOf(scope: SettingsScope): string {
		return scope === "global"
			? join(this.options.agentDir, "settings.json")
			: join(projectConfigDir(this.options.cwd), "settings.json");
	}

	/** pi sees packages only as pier resolved them (pi-view.ts), or none before pier resolved them. */
	private presentPackages(scope: SettingsScope, settings: Settings): Settings {
		const packages = this.options.packages;
		if (packages === "as-configured") return settings;
		const entries = packages
			? piPackageEntries(packages, scope === "global" ? "user" : "project", this.options.cwd)
			: [];
		if (entries.length === 0 && !("packages" in settings)) return settings;
		return { ...settings, packages: entries };
	}

	private present(scope: SettingsScope, file: Settings): Settings {
		const settings = this.presentPackages(scope, file);
		const base = scope === "global" ? this.options.agentDir : projectConfigDir(this.options.cwd);
		const manifestDirs = manifestDirsIn(join(base, "extensions"));
		const listed = Array.isArray(settings.extensions) ? (settings.extensions as unknown[]) : undefined;
		const kept = (listed ?? []).filter((entry) => !pointsIntoManifestDir(entry, base));
		if (manifestDirs.length === 0 && kept.length === (listed?.length ?? 0)) return settings;
		return { ...settings, extensions: [...kept, ...exclusionsFor(manifestDirs)] };
	}
}

function pointsIntoManifestDir(entry: unknown, base: string): boolean {
	if (typeof entry !== "string" || /^[!+-]/.test(entry)) return false;
	const path = entry.startsWith("~/") ? join(process.env.HOME ?? "", entry.slice(2)) : entry;
	return enclosingManifestDir(isAbsolute(path) ? path : resolve(base, path)) !== undefined;
}

/** The file's settings with exactly what pi changed in the presented view applied; pier's view never leaks. */
function applyChanges(original: Settings, presented: Settings, next: Settings): Settings {
	const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
	const out: Settings = { ...original };
	for (const key of new Set([...Object.keys(presented), ...Object.keys(next)])) {
		if (same(presented[key], next[key])) continue;
		if (!(key in next)) {
			delete out[key];
			continue;
		}
		const before = presented[key];
		const value = next[key];
		if (same(before, original[key]) || !Array.isArray(before) || !Array.isArray(value)) {
			out[key] = value;
			continue;
		}
		// A list pier had changed in the view (its patterns, or an untrusted project's hidden list): apply pi's
		// additions and removals to the file's own list.
		const added = value.filter((v) => !before.some((b) => same(b, v)));
		const removed = before.filter((b) => !value.some((v) => same(b, v)));
		const own = Array.isArray(original[key]) ? (original[key] as unknown[]) : [];
		const kept = own.filter((o) => !removed.some((r) => same(r, o)));
		out[key] = [...kept, ...added.filter((v) => !kept.some((k) => same(k, v)))];
	}
	return out;
}

function parseObject(text: string | undefined): Settings | undefined {
	if (text === undefined) return undefined;
	try {
		const value: unknown = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Settings) : undefined;
	} catch {
		return undefined;
	}
}

type LoaderOptions = NonNullable<CreateAgentSessionServicesOptions["resourceLoaderOptions"]>;
type Overrides = Pick<
	LoaderOptions,
	| "skillsOverride"
	| "promptsOverride"
	| "themesOverride"
	| "agentsFilesOverride"
	| "systemPromptOverride"
	| "appendSystemPromptOverride"
>;

/** Resource loader overrides that drop an untrusted project's skills, prompts, themes, system prompts and context files. */
export function resourceOverridesForTrust(
	options: TrustedSettingsOptions,
	cli: { systemPrompt?: string; appendSystemPrompt?: string[] } = {},
): Partial<Overrides> {
	// Installed whatever the decision is now, and asked at each (re)load: a reload may re-decide it.
	const allowed = () => projectContentAllowed(trustNow(options.trust));
	const roots = [projectConfigDir(options.cwd), ...projectAgentsSkillDirs(options.cwd).map((d) => dirname(d))];
	const inside = (path: string, root: string) => path === root || path.startsWith(`${root}${sep}`);
	// The user's agent directory can sit inside the project's .pi (a session in ~): its files stay the user's.
	const isProjects = (path: string | undefined, scope?: string) =>
		scope === "project" ||
		(path !== undefined && !inside(path, resolve(options.agentDir)) && roots.some((r) => inside(path, r)));
	const globalFile = (name: string) => {
		const file = join(options.agentDir, name);
		return existsSync(file) ? readFileSync(file, "utf8") : undefined;
	};
	const projectHas = (name: string) => existsSync(join(projectConfigDir(options.cwd), name));
	const overrides: Required<Overrides> = {
		skillsOverride: (base) =>
			allowed() ? base : { ...base, skills: base.skills.filter((s) => !isProjects(s.filePath, s.sourceInfo?.scope)) },
		promptsOverride: (base) =>
			allowed() ? base : { ...base, prompts: base.prompts.filter((p) => !isProjects(p.filePath, p.sourceInfo?.scope)) },
		themesOverride: (base) =>
			allowed() ? base : { ...base, themes: base.themes.filter((t) => !isProjects(t.sourcePath, t.sourceInfo?.scope)) },
		agentsFilesOverride: (base) =>
			allowed()
				? base
				: { agentsFiles: base.agentsFiles.filter((f) => !isProjectContextFile(f.path, options.agentDir)) },
		// pi prefers the project's file and then never reads the user's: put the user's back.
		systemPromptOverride: (base) => (!allowed() && projectHas("SYSTEM.md") ? globalFile("SYSTEM.md") : base),
		appendSystemPromptOverride: (base) => {
			if (allowed() || !projectHas("APPEND_SYSTEM.md")) return base;
			const global = globalFile("APPEND_SYSTEM.md");
			return global === undefined ? [] : [global];
		},
	};
	// pi reads no SYSTEM.md / APPEND_SYSTEM.md when the command line gives that prompt: leave the CLI's alone.
	const result: Partial<Overrides> = { ...overrides };
	if (cli.systemPrompt !== undefined) delete result.systemPromptOverride;
	if (cli.appendSystemPrompt) delete result.appendSystemPromptOverride;
	return result;
}
