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

export interface ScriptedPackage {
	/** The name in its package.json, which is what the user allows. */
	name: string;
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

function dependencyNames(manifest: Manifest): string[] {
	const names = new Set<string>();
	for (const table of [manifest.dependencies, manifest.optionalDependencies, manifest.peerDependencies])
		if (table && typeof table === "object") for (const name of Object.keys(table)) names.add(name);
	return [...names];
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

/**
 * Every package of the tree rooted at `root` with install-time scripts, the root first. `rootName` names a root
 * whose package.json has no name (a git checkout without one is allowed by its source's identity).
 */
export function packagesWithScripts(root: string, boundary: string, rootName?: string): ScriptedPackage[] {
	const found: ScriptedPackage[] = [];
	const seen = new Set<string>();
	const queue: Array<{ dir: string; root: boolean }> = [{ dir: root, root: true }];
	while (queue.length > 0) {
		const { dir, root: isRoot } = queue.shift()!;
		const key = real(dir);
		if (seen.has(key)) continue;
		seen.add(key);
		const manifest = readManifest(dir);
		if (!manifest) continue;
		const scripts = scriptsOf(dir, manifest, isRoot);
		const name = typeof manifest.name === "string" && manifest.name !== "" ? manifest.name : rootName;
		if (scripts.length > 0) found.push({ name: name ?? dir, dir, scripts, root: isRoot });
		for (const dep of dependencyNames(manifest)) {
			const at = locate(dep, dir, boundary);
			if (at) queue.push({ dir: at, root: false });
		}
	}
	return found;
}

/** `evil (postinstall), dep (install)`: how a list of scripted packages is shown to the user. */
export function describeScripted(packages: ReadonlyArray<{ name: string; scripts: readonly string[] }>): string {
	return packages.map((p) => `${p.name} (${p.scripts.join(", ")})`).join(", ");
}
