/**
 * Every configured package, each resolved on its own: one that fails (bad source, failed clone, missing pin) is
 * one diagnostic naming it, and the others still load. Project entries override global ones of the same identity
 * (pi's rule); an untrusted project's entries are listed but neither installed nor read.
 *
 * `install: true` (a session starting) installs what is missing and re-checks-out a checkout that is not at its
 * pin; `install: false` (`pier list`) only looks.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { DefaultPackageManager, type SettingsManager } from "@earendil-works/pi-coding-agent";
import { type PackageExtension, packageExtensions } from "./contents.js";
import { isManifestRuntime } from "../manifest.js";
import { disablesEverything, filterOf } from "./filter.js";
import { checkoutPath, headOf, matchesPin, stageAndSwap } from "./git.js";
import { withPackageLock } from "./lock.js";
import { checkoutScripts, installNpmSource, skippedNotice } from "./npm.js";
import { type ScriptRecord, scriptRecord } from "./script-policy.js";
import { packagesWithScripts } from "./scripts.js";
import { type PackageScope, type ParsedSource, parseScopedSource, scopeBaseDir } from "./sources.js";
import type { PackageState } from "./vocabulary.js";
import { loadRefusal, readExtensionPolicy, type Standing, standingOf } from "../policy/policy.js";
import { packageSubject } from "../policy/subjects.js";

export type { PackageState } from "./vocabulary.js";

export interface ResolvedPackage {
	scope: PackageScope;
	/** As written in settings. */
	source: string;
	/** The settings entry (a string, or an object with filters). */
	entry: unknown;
	identity?: string;
	kind?: ParsedSource["kind"];
	state: PackageState;
	/** Why it failed, is missing or out of date. */
	reason?: string;
	/** Where it is on disk (a checkout, an npm install, a local directory). */
	root?: string;
	pinned?: string;
	/** The commit a git checkout is at. */
	revision?: string;
	/** What pier did with its install scripts; `unknown` lists the scripted packages of an install pier did not make. */
	scripts?: ScriptRecord | { unknown: Array<{ name: string; scripts: string[] }> };
	extensions: PackageExtension[];
	/** Where the extension policy puts it (policy/policy.ts); `blocked` packages are neither installed nor read. */
	policy?: Standing;
}

/** What every listing of packages says of one (`pier list`, the chamber's Packages view): the optional facts only when present. */
export function packageFacts(p: ResolvedPackage) {
	return {
		scope: p.scope,
		source: p.source,
		...(p.identity ? { identity: p.identity } : {}),
		...(p.kind ? { kind: p.kind } : {}),
		state: p.state,
		...(p.reason ? { reason: p.reason } : {}),
		...(p.root ? { path: p.root } : {}),
		...(p.pinned ? { pinned: p.pinned } : {}),
		...(p.revision ? { revision: p.revision } : {}),
	};
}

export interface PackageResolution {
	/** The project the resolution is for (project packages belong to it). */
	cwd: string;
	packages: ResolvedPackage[];
	diagnostics: string[];
	/** What an install did that the user should know (scripts skipped), not a failure. */
	notices: string[];
}

export interface ResolveOptions {
	cwd: string;
	agentDir: string;
	/** The trust view of settings (an untrusted project's scope is empty in it). */
	settingsManager: SettingsManager;
	/** The project's own entries, listed as untrusted when the project is not trusted. */
	untrustedProjectPackages?: readonly unknown[];
	projectTrusted: boolean;
	install: boolean;
}

/** Notices collected while resolving (one resolution at a time per call). */
type Notify = (message: string) => void;

/** pi's offline mode (`PI_OFFLINE`): nothing is fetched, so nothing is installed. */
export function offline(): boolean {
	const value = (process.env.PI_OFFLINE ?? "").toLowerCase();
	return value === "1" || value === "true" || value === "yes";
}

function sourceOf(entry: unknown): string | undefined {
	if (typeof entry === "string") return entry;
	if (entry && typeof entry === "object" && typeof (entry as { source?: unknown }).source === "string")
		return (entry as { source: string }).source;
	return undefined;
}

function label(pkg: ResolvedPackage): string {
	return `package ${pkg.source} (${pkg.scope})`;
}

/** Installs or reconciles one git package; returns its state. */
async function resolveGit(
	pkg: ResolvedPackage,
	parsed: Extract<ParsedSource, { kind: "git" }>,
	options: ResolveOptions,
	notify: Notify,
): Promise<void> {
	const scopeRoot = scopeBaseDir(pkg.scope, options.cwd, options.agentDir);
	const target = checkoutPath(scopeRoot, parsed);
	pkg.root = target;
	if (parsed.ref) pkg.pinned = parsed.ref;
	// A local repository is no network: offline mode does not stop it.
	const mayInstall = options.install && (parsed.host === "file" || !offline());
	const present = existsSync(target) && (await headOf(target)) !== undefined;
	if (present && (await matchesPin(target, parsed))) {
		pkg.state = "installed";
	} else if (!mayInstall) {
		pkg.state = present ? "out-of-date" : "missing";
		pkg.reason = present
			? `the checkout is not at the pin ${parsed.ref}; the next run or \`pier update\` checks it out`
			: options.install
				? "not installed (offline)"
				: "not installed; the next run or `pier install` installs it";
	} else {
		await withPackageLock(options.agentDir, async () => {
			// Another pier may have done it while this one waited.
			if (existsSync(target) && (await matchesPin(target, parsed))) return;
			const scripts = checkoutScripts(options.agentDir, target, parsed.identity);
			await stageAndSwap(target, scopeRoot, parsed, scripts.onStaged);
			const notice = scripts.record() && skippedNotice(parsed.source, scripts.record()!);
			if (notice) notify(notice);
		});
		pkg.state = "installed";
	}
	const head = existsSync(target) ? await headOf(target) : undefined;
	if (head) pkg.revision = head;
}

async function resolveNpm(
	pkg: ResolvedPackage,
	parsed: Extract<ParsedSource, { kind: "npm" }>,
	options: ResolveOptions,
	notify: Notify,
): Promise<void> {
	if (parsed.version) pkg.pinned = parsed.version;
	const manager = new DefaultPackageManager({
		cwd: options.cwd,
		agentDir: options.agentDir,
		settingsManager: options.settingsManager,
	});
	let root = manager.getInstalledPath(parsed.source, pkg.scope);
	if (!root && options.install && !offline()) {
		// pier's install, not pi's: pi's runs the package's and its dependencies' install scripts.
		const { agentDir, cwd, settingsManager } = options;
		const installed = await withPackageLock(agentDir, () =>
			installNpmSource({ parsed, scope: pkg.scope, cwd, agentDir, settingsManager }),
		);
		root = installed.root;
		const notice = skippedNotice(parsed.source, installed.scripts);
		if (notice) notify(notice);
	}
	if (!root) {
		pkg.state = "missing";
		pkg.reason = offline() ? "not installed (offline)" : "not installed; `pier install` installs it";
		return;
	}
	pkg.root = root;
	pkg.state = "installed";
}

/** What pier recorded of an install's scripts; for an install pier did not make, which packages have scripts. */
function scriptsOf(pkg: ResolvedPackage, parsed: ParsedSource, options: ResolveOptions): ResolvedPackage["scripts"] {
	if (parsed.kind === "local" || !pkg.root) return undefined;
	const recorded = scriptRecord(options.agentDir, pkg.root);
	// Nothing with scripts in the tree: nothing to say.
	if (recorded) return recorded.ran.length + recorded.skipped.length > 0 ? recorded : undefined;
	// A project's npm packages share one install root (dependencies are hoisted into it); a global one is its own.
	const boundary = parsed.kind === "npm" && pkg.scope === "project" ? join(options.cwd, ".pi", "npm") : pkg.root;
	const found = packagesWithScripts(pkg.root, boundary, parsed.identity);
	return found.length > 0 ? { unknown: found.map((p) => ({ name: p.name, scripts: p.scripts })) } : undefined;
}

async function resolveOne(
	pkg: ResolvedPackage,
	parsed: ParsedSource,
	options: ResolveOptions,
	notify: Notify,
): Promise<void> {
	if (parsed.kind === "git") await resolveGit(pkg, parsed, options, notify);
	else if (parsed.kind === "npm") await resolveNpm(pkg, parsed, options, notify);
	else if (!existsSync(parsed.path) || !statSync(parsed.path).isDirectory()) {
		pkg.state = "failed";
		pkg.reason = `${parsed.path} is not a directory`;
		return;
	} else {
		pkg.root = parsed.path;
		pkg.state = "installed";
	}
	if (pkg.state === "installed" && pkg.root) {
		pkg.extensions = await packageExtensions(pkg.root, filterOf(pkg.entry, "extensions"));
		const scripts = scriptsOf(pkg, parsed, options);
		if (scripts) pkg.scripts = scripts;
	}
}

export async function resolvePackages(options: ResolveOptions): Promise<PackageResolution> {
	const resolution: PackageResolution = { cwd: options.cwd, packages: [], diagnostics: [], notices: [] };
	const notify: Notify = (message) => resolution.notices.push(message);
	const scoped: Array<{ entry: unknown; scope: PackageScope; trusted: boolean }> = [
		...(options.settingsManager.getProjectSettings().packages ?? []).map((entry) => ({
			entry,
			scope: "project" as const,
			trusted: true,
		})),
		...(options.projectTrusted ? [] : (options.untrustedProjectPackages ?? [])).map((entry) => ({
			entry,
			scope: "project" as const,
			trusted: false,
		})),
		...(options.settingsManager.getGlobalSettings().packages ?? []).map((entry) => ({
			entry,
			scope: "user" as const,
			trusted: true,
		})),
	];
	const winners = new Map<string, ResolvedPackage>();
	const policy = readExtensionPolicy(options.agentDir);
	for (const { entry, scope, trusted } of scoped) {
		const source = sourceOf(entry);
		const pkg: ResolvedPackage = {
			scope,
			source: source ?? JSON.stringify(entry),
			entry,
			state: "failed",
			extensions: [],
		};
		resolution.packages.push(pkg);
		if (!trusted) {
			pkg.state = "untrusted";
			pkg.reason = "the project is not trusted: nothing is installed or loaded from it";
			continue;
		}
		let switchedOff = false;
		try {
			if (source === undefined) throw new Error('an entry must be a source string or an object with "source"');
			const parsed = parseScopedSource(source, scopeBaseDir(scope, options.cwd, options.agentDir));
			pkg.identity = parsed.identity;
			pkg.kind = parsed.kind;
			const earlier = winners.get(parsed.identity);
			if (earlier) {
				pkg.state = "overridden";
				pkg.reason = `${earlier.scope === scope ? "an earlier" : `the ${earlier.scope}`} entry ${earlier.source} of the same package applies`;
				continue;
			}
			winners.set(parsed.identity, pkg);
			// The extension policy decides before anything is installed or read (a session's refusal is audited).
			const subject = packageSubject(parsed);
			pkg.policy = standingOf(policy, subject, true);
			const refused = loadRefusal(policy, subject, {
				agentDir: options.agentDir,
				name: pkg.source,
				audit: options.install,
				idsUnknown: true,
			});
			if (refused) {
				pkg.state = "blocked";
				pkg.reason = refused;
				resolution.diagnostics.push(`${label(pkg)} not loaded: ${refused}`);
				continue;
			}
			// Switched off: looked at, never installed to load nothing.
			switchedOff = disablesEverything(entry);
			await resolveOne(pkg, parsed, switchedOff ? { ...options, install: false } : options, notify);
			if (switchedOff && pkg.state === "missing") pkg.reason = "switched off in settings (loads nothing)";
		} catch (error) {
			pkg.state = "failed";
			pkg.reason = (error as Error).message.replace(/^package ".*?": /, "");
			pkg.extensions = [];
		}
		if (pkg.state === "failed") resolution.diagnostics.push(`${label(pkg)} failed: ${pkg.reason}`);
		else if ((pkg.state === "missing" || pkg.state === "out-of-date") && !switchedOff)
			resolution.diagnostics.push(`${label(pkg)} not loaded: ${pkg.reason}`);
	}
	return resolution;
}

/** The packages that load: installed, of the resolution's project, with their enabled extensions. */
export function loadedPackages(resolution: PackageResolution | undefined): ResolvedPackage[] {
	return (resolution?.packages ?? []).filter((p) => p.state === "installed" && p.root);
}

/** The enabled manifest extensions of the loading packages, for pier's runtimes (never pi's loader). */
export function packageManifestSources(
	resolution: PackageResolution | undefined,
): Array<{ path: string; origin: PackageScope; packageId: string }> {
	return loadedPackages(resolution).flatMap((p) =>
		p.extensions
			.filter((e) => e.enabled && isManifestRuntime(e.kind))
			.map((e) => ({ path: e.path, origin: p.scope, packageId: p.identity ?? p.source })),
	);
}
