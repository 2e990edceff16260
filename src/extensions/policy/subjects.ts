/**
 * What the policy is shown of each thing it decides on, built the same way at every place pier installs or loads
 * extensions: a package (its identity and, for local ones, its directory), a manifest extension (its id, its
 * directory, its package) and a file pi's loader would import (its name, its path, the package it lies in).
 */
import { realpathSync } from "node:fs";
import { basename, dirname, sep } from "node:path";
import type { ParsedSource } from "../packages/sources.js";
import type { PolicySubject } from "./patterns.js";

function withReal(path: string): string[] {
	try {
		const real = realpathSync(path);
		return real === path ? [path] : [path, real];
	} catch {
		return [path];
	}
}

/** A package by its source: the identity, and the directory a local or `file://` one is read from. */
export function packageSubject(parsed: ParsedSource): PolicySubject {
	const paths =
		parsed.kind === "local"
			? withReal(parsed.path)
			: parsed.kind === "git" && parsed.host === "file"
				? withReal(`/${parsed.path}`)
				: [];
	return { source: parsed.identity, paths };
}

/** A manifest extension (process, QuickJS, native) in `dir`, of the package `packageId` if any. */
export function manifestSubject(dir: string, id: string, packageId?: string): PolicySubject {
	return { id, paths: withReal(dir), ...(packageId ? { source: packageId } : {}) };
}

/** An in-process extension's name, as pi and `pier list` name it: its file's, or its directory's for index.*. */
export function inProcessName(path: string): string {
	const name = basename(path).replace(/\.[cm]?[jt]s$/, "");
	return name === "index" ? basename(dirname(path)) : name;
}

/** What packageOfPath reads of a package resolution (packages/resolve.ts), which itself asks the policy. */
interface InstalledPackages {
	packages: readonly { state: string; root?: string; identity?: string }[];
}

/** The identity of the loaded package `path` lies in, if any (pi sees packages as their directories). */
export function packageOfPath(resolution: InstalledPackages, path: string): string | undefined {
	for (const pkg of resolution.packages) {
		if (pkg.state !== "installed" || !pkg.root) continue;
		const root = pkg.root.endsWith(sep) ? pkg.root : `${pkg.root}${sep}`;
		if (path === pkg.root || path.startsWith(root)) return pkg.identity;
	}
	return undefined;
}

/** A file pi's loader would import, with the package it lies in. */
export function inProcessSubject(path: string, packageId: string | undefined): PolicySubject {
	return { id: inProcessName(path), paths: withReal(path), ...(packageId ? { source: packageId } : {}) };
}
