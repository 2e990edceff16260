/**
 * The installed packages as the catalog shows them: each configured package with its state, version, the
 * extensions it holds, whether it is switched on for every project and in the project looked from, and, for npm
 * packages, the latest version the registry tags (a newer one says so). Nothing is installed or started; a
 * registry that cannot be reached leaves `latest` unknown.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { disablesEverything } from "../packages/filter.js";
import { packageFacts, resolvePackages } from "../packages/resolve.js";
import { type PackageScope, parseSource } from "../packages/sources.js";
import { decideProjectTrust } from "../trust.js";
import { settingsForTrust } from "../trust-settings.js";
import { compareVersions, latestVersion, type RegistryOptions } from "./registry.js";
import { identityOfEntry } from "./switch.js";
import type { InstalledPackage, InstalledView } from "./wire.js";

function versionAt(root: string | undefined): string | undefined {
	if (!root) return undefined;
	try {
		const v = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown }).version;
		return typeof v === "string" ? v : undefined;
	} catch {
		return undefined;
	}
}

export async function installedPackages(options: {
	cwd: string;
	agentDir: string;
	/** Ask the registry for the latest versions (default true). */
	checkLatest?: boolean;
	registry?: RegistryOptions;
}): Promise<InstalledView> {
	const { cwd, agentDir } = options;
	const trust = decideProjectTrust(cwd, { agentDir });
	const resolution = await resolvePackages({
		cwd,
		agentDir,
		settingsManager: settingsForTrust({ cwd, agentDir, trust, packages: "as-configured" }),
		projectTrusted: trust.trusted,
		install: false,
	});
	// A project entry that switches a user package off is not a package of its own here: it is that package's
	// "off in this project".
	const overrides = new Set(
		resolution.packages
			.filter((p) => p.scope === "project" && p.identity && disablesEverything(p.entry))
			.map((p) => p.identity!),
	);
	const userIdentities = new Set(resolution.packages.filter((p) => p.scope === "user").map((p) => p.identity));
	// Such a user package is "overridden" in this project's resolution; what it is on its own comes from the
	// user's settings alone.
	const userOnly =
		overrides.size === 0
			? undefined
			: await resolvePackages({
					cwd,
					agentDir,
					settingsManager: settingsForTrust({
						cwd,
						agentDir,
						trust: { ...trust, trusted: false },
						packages: "as-configured",
					}),
					projectTrusted: false,
					install: false,
				});
	const listed = resolution.packages
		.filter(
			(p) => !(p.scope === "project" && p.identity && overrides.has(p.identity) && userIdentities.has(p.identity)),
		)
		.map((p) =>
			p.scope === "user" && p.identity && overrides.has(p.identity)
				? (userOnly?.packages.find((u) => u.scope === "user" && u.identity === p.identity) ?? p)
				: p,
		);
	const packages = await Promise.all(
		listed.map(async (p): Promise<InstalledPackage> => {
			const version = versionAt(p.root);
			let latest: string | undefined;
			if (p.kind === "npm" && options.checkLatest !== false) {
				const parsed = parseSource(p.source);
				if (parsed.kind === "npm") latest = await latestVersion(parsed.name, { cwd, ...options.registry });
			}
			const enabled = !disablesEverything(p.entry);
			const offHere = p.scope === "user" && p.identity !== undefined && overrides.has(p.identity);
			return {
				...packageFacts(p),
				...(version ? { version } : {}),
				...(latest ? { latest } : {}),
				newer: latest !== undefined && version !== undefined && compareVersions(latest, version) > 0,
				enabled,
				enabledHere: enabled && !offHere,
				extensions: p.extensions.map((e) => ({ id: e.id ?? e.name, kind: e.kind, enabled: e.enabled })),
			};
		}),
	);
	return { project: { cwd: trust.cwd, trusted: trust.trusted }, packages };
}

/** The configured packages' identities and their scopes (the project's only when it is trusted); reads settings only. */
export function configuredIdentities(cwd: string, agentDir: string): Map<string, PackageScope[]> {
	const trust = decideProjectTrust(cwd, { agentDir });
	const settings = settingsForTrust({ cwd, agentDir, trust, packages: "as-configured" });
	const out = new Map<string, PackageScope[]>();
	const add = (entries: readonly unknown[] | undefined, scope: PackageScope) => {
		for (const entry of entries ?? []) {
			const identity = identityOfEntry(entry, scope, cwd, agentDir);
			if (identity) out.set(identity, [...(out.get(identity) ?? []), scope]);
		}
	};
	if (trust.trusted) add(settings.getProjectSettings().packages, "project");
	add(settings.getGlobalSettings().packages, "user");
	return out;
}
