/**
 * Where a package of an installed tree came from, for allowing its scripts by name. A name in a package.json proves
 * nothing: a dependency fetched from a URL, a git repository or a file can say it is `esbuild`. A dependency is
 * known by its name only when the spec that asked for it is a registry spec (a range, a tag, or an `npm:` alias,
 * which names the real package) and npm's own record of the install (its hidden lockfile,
 * `node_modules/.package-lock.json`) says it was fetched from the registry under that name. A bundled dependency
 * came inside its bundler's tarball: it is its bundler's code, run and reported with it.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

interface LockEntry {
	name?: unknown;
	resolved?: unknown;
	inBundle?: unknown;
}

export interface InstallRecord {
	/** The lockfile's project directory (its keys are paths relative to it). */
	project: string;
	packages: Record<string, LockEntry>;
	/** The registry npm fetched from, with a trailing slash. */
	registry: string;
}

/** npm's hidden lockfile nearest above `boundary` (at most three levels up: a global package's is its lib's). */
export function readInstallRecord(boundary: string, registry: string | undefined): InstallRecord | undefined {
	if (!registry) return undefined;
	let at = boundary;
	for (let level = 0; level < 4; level++) {
		const file = join(at, "node_modules", ".package-lock.json");
		try {
			const value = JSON.parse(readFileSync(file, "utf8")) as { packages?: unknown };
			if (value.packages && typeof value.packages === "object")
				return {
					project: at,
					packages: value.packages as Record<string, LockEntry>,
					registry: registry.endsWith("/") ? registry : `${registry}/`,
				};
		} catch {
			// not here
		}
		if (dirname(at) === at) break;
		at = dirname(at);
	}
	return undefined;
}

/** The registry name a spec asks for, or undefined for a URL, git, file, link or GitHub-shorthand spec. */
export function registryName(key: string, spec: unknown): string | undefined {
	if (typeof spec !== "string") return undefined;
	if (spec.startsWith("npm:")) {
		const target = spec.slice(4);
		const at = target.indexOf("@", 1);
		return at < 0 ? target : target.slice(0, at);
	}
	// Ranges and tags never hold `/` or `:`; every other kind of spec does.
	return /[/:]/.test(spec) ? undefined : key;
}

const entryOf = (record: InstallRecord, dir: string) =>
	record.packages[relative(record.project, dir).split(sep).join("/")];

/** Whether npm fetched the package at `dir` from the registry as `name`. */
export function fetchedAs(record: InstallRecord | undefined, dir: string, name: string): boolean {
	const entry = record && entryOf(record, dir);
	if (!entry || typeof entry.resolved !== "string") return false;
	const base = name.startsWith("@") ? name.split("/")[1] : name;
	return entry.resolved.startsWith(`${record.registry}${name}/-/${base}-`) && entry.inBundle !== true;
}

/** Whether the package at `dir` came inside another package's tarball. */
export function bundled(record: InstallRecord | undefined, dir: string): boolean {
	return record !== undefined && entryOf(record, dir)?.inBundle === true;
}
