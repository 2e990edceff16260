/** Where pier's own extension directories (holding a pi-extension.json) are, for discovery and pi's loader. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { MANIFEST_FILE } from "./manifest.js";

/** The non-hidden subdirectories of `root` holding a pi-extension.json (pier's discovery uses the same rule). */
export function manifestDirsIn(root: string): string[] {
	if (!existsSync(root)) return [];
	return readdirSync(root, { withFileTypes: true })
		.filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
		.map((entry) => join(root, entry.name))
		.filter((dir) => existsSync(join(dir, MANIFEST_FILE)))
		.sort();
}

/** The manifest directory `path` is, or lies in (its nearest ancestor holding a pi-extension.json), if any. */
export function enclosingManifestDir(path: string): string | undefined {
	let current = resolve(path);
	try {
		if (!statSync(current).isDirectory()) current = dirname(current);
	} catch {
		return undefined;
	}
	while (true) {
		if (existsSync(join(current, MANIFEST_FILE))) return current;
		const parent = dirname(current);
		if (parent === current) return undefined;
		current = parent;
	}
}
