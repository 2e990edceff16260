/**
 * What a package holds, by kind: pier's manifest directories (`extensions/**` holding `pi-extension.json`) and
 * pi's own TypeScript/JavaScript extensions (found by pi's DefaultPackageManager, so `package.json#pi` and pi's
 * conventions keep working), each marked enabled or not by the entry's filter (filter.ts, one matcher for all).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, extname, join, relative, sep } from "node:path";
import { DefaultPackageManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { MANIFEST_FILE } from "../manifest.js";
import { type FilterCandidate, isSelected } from "./filter.js";

import type { ExtensionKind } from "./vocabulary.js";

export type { ExtensionKind } from "./vocabulary.js";

export interface PackageExtension {
	kind: ExtensionKind;
	/** The manifest directory, or pi's extension file. */
	path: string;
	/** Relative to the package root, `/`-separated. */
	rel: string;
	name: string;
	/** A manifest's declared id (read without validation: the runtime validates it when it loads). */
	id?: string;
	enabled: boolean;
}

const posix = (path: string) => path.split(sep).join("/");

/**
 * The package root when it holds a pi-extension.json itself, else every directory under `<root>/extensions` holding one, skipping hidden entries, symlinks and
 * node_modules (a package must not reach outside itself, nor run what its dependencies ship); a manifest directory
 * is not searched further.
 */
export function manifestDirsOf(root: string): string[] {
	// A repository that is one extension (pi-extension.json at its root) is a package of just that extension.
	if (existsSync(join(root, MANIFEST_FILE))) return [root];
	const found: string[] = [];
	const walk = (dir: string) => {
		let entries: import("node:fs").Dirent[];
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
			if (entry.name.startsWith(".") || entry.name === "node_modules" || !entry.isDirectory()) continue;
			const path = join(dir, entry.name);
			if (existsSync(join(path, MANIFEST_FILE))) found.push(path);
			else walk(path);
		}
	};
	walk(join(root, "extensions"));
	return found;
}

function manifestFacts(dir: string): { kind: ExtensionKind; id?: string } {
	try {
		const json = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as { runtime?: unknown; id?: unknown };
		return {
			kind: json.runtime === "quickjs" || json.runtime === "native" ? json.runtime : "process",
			...(typeof json.id === "string" ? { id: json.id } : {}),
		};
	} catch {
		return { kind: "process" };
	}
}

/**
 * Whether a file pi found lies in a directory holding a pi-extension.json (the root or below): pier's, even
 * when pier skipped it (a symlinked manifest directory is loaded by neither).
 */
function inManifestDir(file: string, root: string): boolean {
	let dir = dirname(file);
	while (dir === root || dir.startsWith(`${root}${sep}`)) {
		if (existsSync(join(dir, MANIFEST_FILE))) return true;
		dir = dirname(dir);
	}
	return false;
}

/** pi's extension files of a package directory, as pi itself would find them (its manifest and conventions). */
async function piExtensionFiles(root: string): Promise<string[]> {
	const settingsManager = SettingsManager.inMemory({ packages: [root] });
	// Nothing but the package: no agent directory or project of its own to auto-discover from.
	const empty = join(root, ".pier-none");
	const manager = new DefaultPackageManager({ cwd: empty, agentDir: empty, settingsManager });
	const resolved = await manager.resolve(async () => "skip");
	return resolved.extensions.filter((r) => r.metadata.origin === "package" && r.enabled).map((r) => r.path);
}

function candidate(root: string, path: string, names: string[]): FilterCandidate {
	return { rel: posix(relative(root, path)), absolute: posix(path), basename: basename(path), names };
}

/** The extensions of the package at `root`, filtered by the entry's `extensions` patterns. */
export async function packageExtensions(
	root: string,
	filter: readonly string[] | undefined,
): Promise<PackageExtension[]> {
	const manifests = manifestDirsOf(root);
	const out: PackageExtension[] = [];
	for (const dir of manifests) {
		const facts = manifestFacts(dir);
		const name = basename(dir);
		const names = [name, ...(facts.id && facts.id !== name ? [facts.id] : [])];
		out.push({
			kind: facts.kind,
			path: dir,
			rel: posix(relative(root, dir)) || ".",
			name,
			...(facts.id ? { id: facts.id } : {}),
			enabled: isSelected(candidate(root, dir, names), filter),
		});
	}
	for (const file of await piExtensionFiles(root)) {
		// A manifest directory's index.js is pier's runtime's to run, never pi's in Node.
		if (inManifestDir(file, root)) continue;
		const stem = basename(file, extname(file));
		const name = stem === "index" ? basename(join(file, "..")) : stem;
		out.push({
			kind: /\.[cm]?ts$/.test(file) ? "typescript" : "javascript",
			path: file,
			rel: posix(relative(root, file)),
			name,
			enabled: isSelected(candidate(root, file, [name]), filter),
		});
	}
	return out;
}

/**
 * The `extensions` filter pi is given for the package: exactly the TypeScript/JavaScript files pier's matcher
 * enabled (`!**` switches off the rest, each `+path` adds one back), so pi's loader never sees a manifest directory.
 */
export function piExtensionsFilter(extensions: readonly PackageExtension[]): string[] {
	const enabled = extensions.filter((e) => e.enabled && (e.kind === "typescript" || e.kind === "javascript"));
	return enabled.length === 0 ? [] : ["!**", ...enabled.map((e) => `+${e.rel}`)];
}
