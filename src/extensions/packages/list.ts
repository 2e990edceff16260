/**
 * `pier list`'s model: every extension pier would load for a project, and why each does or does not, without
 * starting anything or installing anything. The JSON form (`pier list --json`) is this object, documented in
 * docs/packages.md; its `version` changes when a field changes meaning.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DefaultPackageManager } from "@earendil-works/pi-coding-agent";
import { isManifestPath } from "../bridge/discovery.js";
import { packageDigest } from "../grants/identity.js";
import { readGrants } from "../grants/store.js";
import { sortedGrants } from "../grants/vocabulary.js";
import { isManifestRuntime, loadManifest } from "../manifest.js";
import type { TrustDecision } from "../trust.js";
import { manifestDirsIn, settingsForTrust } from "../trust-settings.js";
import type { ExtensionKind } from "./contents.js";
import { type PackageResolution, packageFacts, type ResolvedPackage, resolvePackages } from "./resolve.js";
import {
	type ExtensionPolicy,
	loadRefusal,
	policyActive,
	projectPolicyIgnored,
	readExtensionPolicy,
	type Standing,
} from "../policy/policy.js";
import { inProcessName, inProcessSubject, manifestSubject } from "../policy/subjects.js";

export type ExtensionState = "enabled" | "filtered" | "untrusted" | "invalid" | "failed" | "blocked";

export interface ListedExtension {
	/** The manifest id, or for TypeScript/JavaScript the extension's name. */
	id: string;
	kind: ExtensionKind;
	origin: "package" | "user" | "project" | "cli";
	scope: "user" | "project" | "cli";
	package?: { source: string; identity?: string; pinned?: string; revision?: string };
	path: string;
	state: ExtensionState;
	reason?: string;
	capabilities: { declared: string[]; uiDeclared: string[]; granted: string[] };
	/** `--check` only: it started through its handshake. */
	checked?: boolean;
}

export interface ListedPackage {
	scope: "user" | "project";
	source: string;
	identity?: string;
	kind?: string;
	state: ResolvedPackage["state"];
	reason?: string;
	path?: string;
	pinned?: string;
	revision?: string;
	/** What pier did with its install scripts (ran, skipped), or which have scripts when pier did not install it. */
	scripts?: ResolvedPackage["scripts"];
	filtered: boolean;
	/** Where the extension policy puts it: allowed, blocked by a pattern, not allowed by the allow list. */
	standing?: Standing;
}

export interface ExtensionList {
	version: 1;
	cwd: string;
	trust: {
		trusted: boolean;
		source: TrustDecision["source"];
		matchedPath?: string;
		resources: string[];
		reason?: string;
	};
	packages: ListedPackage[];
	extensions: ListedExtension[];
	/** The extension policy (global settings only): its file, and what is wrong with it or with a project's try. */
	policy: { file: string; active: boolean; problem?: string; ignored?: string };
}

interface Where {
	origin: ListedExtension["origin"];
	scope: ListedExtension["scope"];
	package?: ListedExtension["package"];
}

function manifestEntry(
	dir: string,
	where: Where,
	enabled: boolean,
	untrusted: boolean,
	agentDir: string,
	policy: ExtensionPolicy,
): ListedExtension {
	const none: ListedExtension["capabilities"] = { declared: [], uiDeclared: [], granted: [] };
	const entry = (
		id: string,
		kind: ExtensionKind,
		state: ExtensionState,
		reason: string | undefined,
		capabilities = none,
	) => ({
		id,
		kind,
		...where,
		path: dir,
		state,
		...(reason ? { reason } : {}),
		capabilities,
	});
	if (untrusted) return entry(basename(dir), "process", "untrusted", "the project is not trusted");
	try {
		const manifest = loadManifest(dir);
		const granted = grantsHeld(agentDir, manifest.id, dirname(manifest.manifestPath));
		const subject = manifestSubject(dir, manifest.id, where.package?.identity);
		const refused = enabled && loadRefusal(policy, subject, { agentDir, name: manifest.id, audit: false });
		if (refused)
			return entry(manifest.id, manifest.runtime.kind, "blocked", refused, {
				declared: manifest.capabilities,
				uiDeclared: manifest.uiCapabilities,
				granted,
			});
		return entry(
			manifest.id,
			manifest.runtime.kind,
			enabled ? "enabled" : "filtered",
			enabled ? undefined : "not selected by the package's extensions filter",
			{ declared: manifest.capabilities, uiDeclared: manifest.uiCapabilities, granted },
		);
	} catch (error) {
		return entry(basename(dir), "process", "invalid", (error as Error).message);
	}
}

function packageEntries(pkg: ResolvedPackage, agentDir: string, policy: ExtensionPolicy): ListedExtension[] {
	const where: Where = {
		origin: "package",
		scope: pkg.scope,
		package: {
			source: pkg.source,
			...(pkg.identity ? { identity: pkg.identity } : {}),
			...(pkg.pinned ? { pinned: pkg.pinned } : {}),
			...(pkg.revision ? { revision: pkg.revision } : {}),
		},
	};
	return pkg.extensions.map((e) => {
		if (isManifestRuntime(e.kind)) return manifestEntry(e.path, where, e.enabled, false, agentDir, policy);
		const refused = loadRefusal(policy, inProcessSubject(e.path, pkg.identity), {
			agentDir,
			name: e.name,
			audit: false,
		});
		if (refused && e.enabled) return { ...inProcessEntry(e, where), state: "blocked" as const, reason: refused };
		return {
			id: e.name,
			kind: e.kind,
			...where,
			path: e.path,
			state: e.enabled ? ("enabled" as const) : ("filtered" as const),
			...(e.enabled ? {} : { reason: "not selected by the package's extensions filter" }),
			// pi's in-process extensions have every power of the pi process; nothing is declared or granted.
			capabilities: { declared: [], uiDeclared: [], granted: [] },
		};
	});
}

function inProcessEntry(e: { name: string; kind: ExtensionKind; path: string }, where: Where): ListedExtension {
	return { id: e.name, kind: e.kind, ...where, path: e.path, state: "enabled", capabilities: NONE };
}

const NONE: ListedExtension["capabilities"] = { declared: [], uiDeclared: [], granted: [] };

/**
 * The policy's refusal of a file pi's loader would import outside packages (pi-load-guard.ts disabled it in pi's
 * answer; the list says why).
 */
function policyRefusal(policy: ExtensionPolicy, path: string, agentDir: string): string | undefined {
	return loadRefusal(policy, inProcessSubject(path, undefined), { agentDir, name: inProcessName(path), audit: false });
}

/** pi's own extensions outside packages (auto-discovered dirs, settings `extensions`), as pi's resolver sees them. */
async function piTopLevel(
	cwd: string,
	agentDir: string,
	trust: TrustDecision,
	policy: ExtensionPolicy,
): Promise<ListedExtension[]> {
	const settingsManager = settingsForTrust({ cwd, agentDir, trust });
	const manager = new DefaultPackageManager({ cwd, agentDir, settingsManager });
	const resolved = await manager.resolve(async () => "skip");
	return resolved.extensions
		.filter((r) => r.metadata.origin !== "package")
		.map((r) => ({ r, refused: policyRefusal(policy, r.path, agentDir) }))
		.map(({ r, refused }) => ({
			id:
				basename(r.path).replace(/\.[cm]?[jt]s$/, "") === "index"
					? basename(join(r.path, ".."))
					: basename(r.path).replace(/\.[cm]?[jt]s$/, ""),
			kind: /\.[cm]?ts$/.test(r.path) ? ("typescript" as const) : ("javascript" as const),
			origin: r.metadata.scope === "project" ? ("project" as const) : ("user" as const),
			scope: r.metadata.scope === "project" ? ("project" as const) : ("user" as const),
			path: r.path,
			...(refused
				? { state: "blocked" as const, reason: refused }
				: {
						state: r.enabled ? ("enabled" as const) : ("filtered" as const),
						...(r.enabled ? {} : { reason: "switched off in settings" }),
					}),
			capabilities: { declared: [], uiDeclared: [], granted: [] },
		}));
}

export async function listExtensions(options: {
	cwd: string;
	agentDir: string;
	trust: TrustDecision;
	/** The project's own `packages` entries (shown as untrusted when it is not trusted). */
	projectPackages: readonly unknown[];
	/** `-e` paths, as the run would get them. */
	cliPaths?: readonly string[];
}): Promise<ExtensionList> {
	const { cwd, agentDir, trust } = options;
	const policy = readExtensionPolicy(agentDir);
	const resolution: PackageResolution = await resolvePackages({
		cwd,
		agentDir,
		settingsManager: settingsForTrust({ cwd, agentDir, trust, packages: "as-configured" }),
		untrustedProjectPackages: options.projectPackages,
		projectTrusted: trust.trusted,
		install: false,
	});
	const extensions: ListedExtension[] = [];
	for (const path of options.cliPaths ?? []) {
		if (isManifestPath(path)) {
			extensions.push(manifestEntry(path, { origin: "cli", scope: "cli" }, true, false, agentDir, policy));
			continue;
		}
		const refused = policyRefusal(policy, path, agentDir);
		// pi loads the rest of -e itself (a file, a directory, or a package source it installs temporarily).
		extensions.push({
			id: basename(path).replace(/\.[cm]?[jt]s$/, ""),
			kind: /\.[cm]?js$/.test(path) ? "javascript" : "typescript",
			origin: "cli",
			scope: "cli",
			path,
			state: refused ? "blocked" : "enabled",
			...(refused ? { reason: refused } : {}),
			capabilities: { declared: [], uiDeclared: [], granted: [] },
		});
	}
	for (const dir of manifestDirsIn(join(agentDir, "extensions")))
		extensions.push(manifestEntry(dir, { origin: "user", scope: "user" }, true, false, agentDir, policy));
	for (const dir of manifestDirsIn(join(cwd, ".pi", "extensions")))
		extensions.push(
			manifestEntry(dir, { origin: "project", scope: "project" }, true, !trust.trusted, agentDir, policy),
		);
	extensions.push(...(await piTopLevel(cwd, agentDir, trust, policy)));
	for (const pkg of resolution.packages) extensions.push(...packageEntries(pkg, agentDir, policy));
	const ignored = projectPolicyIgnored(cwd, agentDir);
	return {
		version: 1,
		cwd: trust.cwd,
		trust: {
			trusted: trust.trusted,
			source: trust.source,
			...(trust.matchedPath ? { matchedPath: trust.matchedPath } : {}),
			resources: trust.resources,
			...(trust.reason ? { reason: trust.reason } : {}),
		},
		packages: resolution.packages.map((p) => ({
			...packageFacts(p),
			...(p.scripts ? { scripts: p.scripts } : {}),
			filtered: typeof p.entry === "object" && p.entry !== null,
			...(p.policy ? { standing: p.policy } : {}),
		})),
		extensions,
		policy: {
			file: policy.file,
			active: policyActive(policy),
			...(policy.problem ? { problem: policy.problem } : {}),
			...(ignored ? { ignored } : {}),
		},
	};
}

/** What the extension in `dir` holds: a grant counts only for the directory and code it was given to. */
function grantsHeld(agentDir: string, id: string, dir: string): string[] {
	const entry = readGrants(agentDir).grants.get(id);
	if (!entry || entry.dir !== dir) return [];
	try {
		return entry.digest === packageDigest(dir) ? sortedGrants(entry.grants) : [];
	} catch {
		return [];
	}
}

/**
 * The project's own `packages` entries as written, whatever its trust: `pier list` shows an untrusted project's
 * packages as untrusted rather than hiding them. A missing or unreadable file has none.
 */
export function projectPackageEntries(cwd: string): unknown[] {
	try {
		const json = JSON.parse(readFileSync(join(cwd, ".pi", "settings.json"), "utf8")) as { packages?: unknown };
		return Array.isArray(json.packages) ? json.packages : [];
	} catch {
		return [];
	}
}
