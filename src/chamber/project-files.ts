/**
 * `@` in the composer: the project's files, matched with pi-tui's fuzzy filter (the one pi's editor uses), and
 * the chosen ones attached to a prompt as pi's `@file` arguments are (`<file name="…">…</file>` text, images as
 * image content). Only files inside the session's directory, by real path: a project's symlink cannot reach out.
 */
import { readdirSync, realpathSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ImageContent } from "@earendil-works/pi-ai";
import { fuzzyFilter } from "@earendil-works/pi-tui";
import { piModule } from "../agent/pi-internals.js";
import { SessionError } from "./session-error.js";

/** How many files a listing walks at most (a home directory must not take the daemon's time). */
export const FILE_SCAN_LIMIT = 20_000;
export const FILE_RESULTS = 50;
/** pi reads a whole file into the prompt; past this a file is refused with a message instead. */
export const ATTACH_MAX_BYTES = 512 * 1024;
const SKIP = new Set([".git", "node_modules", ".hg", ".svn"]);
const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

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

function inside(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel) && !rel.startsWith(`..${sep}`));
}

/** The prompt text pi's `@file` arguments make, and their images; every problem names the file and what to do. */
export async function attachFiles(
	cwd: string,
	files: readonly string[],
): Promise<{ text: string; images: ImageContent[] }> {
	const root = realpathSync(cwd);
	let text = "";
	const images: ImageContent[] = [];
	for (const file of files) {
		const absolute = resolve(root, file);
		let real: string;
		try {
			real = realpathSync(absolute);
		} catch {
			throw new SessionError("bad_file", `@${file}: no such file in ${root}`);
		}
		if (!inside(root, real)) throw new SessionError("outside_project", `@${file}: outside the project (${root})`);
		const stat = statSync(real);
		if (!stat.isFile()) throw new SessionError("bad_file", `@${file}: not a file`);
		if (stat.size === 0) continue; // pi skips empty files
		if (stat.size > ATTACH_MAX_BYTES) {
			throw new SessionError(
				"bad_file",
				`@${file}: ${stat.size} bytes, over the ${ATTACH_MAX_BYTES} bytes a prompt attaches; mention the path instead and let the agent read it`,
			);
		}
		if (IMAGE.test(real)) {
			// pi's reader resizes images as its CLI does. It exits the process on a file it cannot read, so it only
			// gets a file just checked, one at a time.
			const pi = await piModule<{
				processFileArguments(f: string[]): Promise<{ text: string; images: ImageContent[] }>;
			}>("./cli/file-processor.js");
			const processed = await pi.processFileArguments([real]);
			text += processed.text;
			images.push(...processed.images);
		} else {
			text += `<file name="${real}">\n${await readFile(real, "utf8")}\n</file>\n`;
		}
	}
	return { text, images };
}
