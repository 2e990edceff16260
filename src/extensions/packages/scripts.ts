/**
 * Which packages of an installed tree have install-time scripts: the ones npm runs on install (`preinstall`,
 * `install`, `postinstall`, and `node-gyp rebuild` for a `binding.gyp` without its own install script), and for the
 * root of a git checkout also `prepare` (npm runs it when installing in a package's own directory). pier installs
 * with scripts off; this is the list it reports as skipped, or runs for the names the user allowed.
 *
 * The tree is followed as Node resolves it: each dependency is looked up in `node_modules` from the package's
 * directory upwards, never above `boundary` (the install's root), so another install's packages are not counted.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { bundled, fetchedAs, type InstallRecord, registryName } from "./provenance.js";

export interface ScriptedPackage {
	/**
	 * What the user allows it by: the install's own source for the root, the registry name for a dependency npm
	 * fetched from the registry; otherwise its package.json name with where it came from, which no allowance matches.
	 */
	name: string;
	/** Whether `name` is one the user can allow (provenance.ts). */
	allowable: boolean;
	/** For a bundled dependency, the package whose tarball brought it: its scripts run (or not) with that one's. */
	bundledIn?: string;
	dir: string;
	scripts: string[];
	/** The tree's own root (a git checkout's package), whose `prepare` counts too. */
	root: boolean;
}

const INSTALL = ["preinstall", "install", "postinstall"] as const;
const PREPARE = ["preprepare", "prepare", "postprepare"] as const;

interface Manifest {
	name?: unknown;
	scripts?: unknown;
	bundleDependencies?: unknown;
	bundledDependencies?: unknown;
	dependencies?: unknown;
	optionalDependencies?: unknown;
	peerDependencies?: unknown;
}

function readManifest(dir: string): Manifest | undefined {
	try {
		const value = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as unknown;
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Manifest) : undefined;
	} catch {
		return undefined;
	}
}

function scriptsOf(dir: string, manifest: Manifest, root: boolean): string[] {
	const table =
		manifest.scripts && typeof manifest.scripts === "object" ? (manifest.scripts as Record<string, unknown>) : {};
	const has = (event: string) => typeof table[event] === "string" && (table[event] as string).trim() !== "";
	const found: string[] = INSTALL.filter(has);
	// npm's implicit install script: node-gyp runs when there is a binding.gyp and no install script of its own.
	if (!has("install") && !has("preinstall") && existsSync(join(dir, "binding.gyp"))) found.push("install (node-gyp)");
	if (root) found.push(...PREPARE.filter(has));
	return found;
}

function dependencies(manifest: Manifest): Map<string, unknown> {
	const specs = new Map<string, unknown>();
	for (const table of [manifest.peerDependencies, manifest.optionalDependencies, manifest.dependencies])
		if (table && typeof table === "object") for (const [name, spec] of Object.entries(table)) specs.set(name, spec);
	return specs;
}

function bundles(manifest: Manifest, dep: string): boolean {
	const list = manifest.bundleDependencies ?? manifest.bundledDependencies;
	return list === true || (Array.isArray(list) && list.includes(dep));
}

function inside(dir: string, boundary: string): boolean {
	return dir === boundary || dir.startsWith(boundary.endsWith(sep) ? boundary : boundary + sep);
}

/** Where Node would find `name` for a package in `dir`, looking no higher than `boundary`. */
function locate(name: string, dir: string, boundary: string): string | undefined {
	for (let at = dir; inside(at, boundary); at = dirname(at)) {
		const candidate = join(at, "node_modules", name);
		if (existsSync(join(candidate, "package.json"))) return candidate;
		if (at === boundary || dirname(at) === at) break;
	}
	return undefined;
}

function real(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

interface Visit {
	dir: string;
	root: boolean;
	name: string;
	allowable: boolean;
	bundledIn?: string;
}

/**
 * Every package of the tree rooted at `root` with install-time scripts, the root first. The root is allowed by
 * `rootName` when `authoritative` (an npm source's registry name), else by its package.json name, or `rootName`
 * without one (a git checkout's identity).
 * `record` is npm's record of the install, which a dependency's name is checked against (provenance.ts).
 */
export function packagesWithScripts(
	root: string,
	boundary: string,
	rootName?: string,
	record?: InstallRecord,
	authoritative = false,
): ScriptedPackage[] {
	const found: ScriptedPackage[] = [];
	const seen = new Set<string>();
	const queue: Visit[] = [{ dir: root, root: true, name: rootName ?? "", allowable: true }];
	while (queue.length > 0) {
		const visit = queue.shift()!;
		const key = real(visit.dir);
		if (seen.has(key)) continue;
		seen.add(key);
		const manifest = readManifest(visit.dir);
		if (!manifest) continue;
		const own = typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : visit.dir;
		const ownName = typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : undefined;
		const name = visit.root ? ((authoritative ? rootName : ownName) ?? rootName ?? own) : visit.name;
		const scripts = scriptsOf(visit.dir, manifest, visit.root);
		if (scripts.length > 0)
			found.push({
				name,
				dir: visit.dir,
				scripts,
				root: visit.root,
				allowable: visit.allowable && !visit.bundledIn,
				...(visit.bundledIn ? { bundledIn: visit.bundledIn } : {}),
			});
		for (const [dep, spec] of dependencies(manifest)) {
			const at = locate(dep, visit.dir, boundary);
			if (!at) continue;
			if (bundles(manifest, dep) || bundled(record, at)) {
				const bundler = visit.bundledIn ?? name;
				queue.push({ dir: at, root: false, name: `${bundler} > ${dep}`, allowable: false, bundledIn: bundler });
				continue;
			}
			const asked = registryName(dep, spec);
			const verified = asked !== undefined && fetchedAs(record, at, asked);
			const label = verified
				? asked
				: record
					? `${dep} (${typeof spec === "string" ? spec : "?"}: not fetched from the registry under that name)`
					: `${dep} (where npm fetched it from is not recorded)`;
			queue.push({ dir: at, root: false, name: label, allowable: verified });
		}
	}
	return found;
}

/** `evil (postinstall), dep (install)`: how a list of scripted packages is shown to the user. */
export function describeScripted(packages: ReadonlyArray<{ name: string; scripts: readonly string[] }>): string {
	return packages.map((p) => `${p.name} (${p.scripts.join(", ")})`).join(", ");
}
