/**
 * What pi's own resource loader is told about packages once pier resolved them: each loading package as its
 * directory (so pi installs nothing, fails on nothing and never falls back to a default branch), with an
 * `extensions` filter naming exactly the TypeScript/JavaScript files pier's matcher enabled. Failed, missing,
 * overridden and untrusted packages are not shown to pi at all; skills, prompts and themes keep the entry's
 * own filters (pi applies them).
 */
import { piExtensionsFilter } from "./contents.js";
import { loadedPackages, type PackageResolution } from "./resolve.js";
import type { PackageScope } from "./sources.js";

type PiPackageEntry = {
	source: string;
	extensions: string[];
	skills?: string[];
	prompts?: string[];
	themes?: string[];
};

export function piPackageEntries(resolution: PackageResolution, scope: PackageScope, cwd: string): PiPackageEntry[] {
	// Another project's packages were never resolved: nothing of them reaches pi.
	if (scope === "project" && resolution.cwd !== cwd) return [];
	return loadedPackages(resolution)
		.filter((p) => p.scope === scope)
		.map((p) => {
			const entry = (typeof p.entry === "object" && p.entry !== null ? p.entry : {}) as Record<string, unknown>;
			const own: Partial<PiPackageEntry> = {};
			for (const type of ["skills", "prompts", "themes"] as const)
				if (Array.isArray(entry[type])) own[type] = entry[type] as string[];
			return { source: p.root!, ...own, extensions: piExtensionsFilter(p.extensions) };
		});
}
