/**
 * `@` in the composer: the project's files, matched with pi-tui's fuzzy filter (the one pi's editor uses). The
 * chosen ones are attached by `attachments/attach.ts`.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fuzzyFilter } from "@earendil-works/pi-tui";

/** How many files a listing walks at most (a home directory must not take the daemon's time). */
export const FILE_SCAN_LIMIT = 20_000;
export const FILE_RESULTS = 50;
const SKIP = new Set([".git", "node_modules", ".hg", ".svn"]);

/** Project-relative paths (with `/`), breadth first, directories marked with a trailing `/`. */
export function listProjectFiles(cwd: string, limit = FILE_SCAN_LIMIT): string[] {
	const out: string[] = [];
	const queue = [""];
	while (queue.length > 0 && out.length < limit) {
		const dir = queue.shift() as string;
		let names: import("node:fs").Dirent[];
		try {
			names = readdirSync(join(cwd, dir), { withFileTypes: true });
		} catch {
			continue;
		}
		names.sort((a, b) => a.name.localeCompare(b.name));
		for (const d of names) {
			if (out.length >= limit) break;
			if (SKIP.has(d.name)) continue;
			const path = dir ? `${dir}/${d.name}` : d.name;
			if (d.isDirectory()) {
				out.push(`${path}/`);
				queue.push(path);
			} else if (d.isFile() || d.isSymbolicLink()) out.push(path);
		}
	}
	return out;
}

export function findProjectFiles(cwd: string, query: string): string[] {
	const files = listProjectFiles(cwd);
	if (!query) return files.filter((f) => !f.endsWith("/")).slice(0, FILE_RESULTS);
	return fuzzyFilter(files, query, (f) => f).slice(0, FILE_RESULTS);
}
