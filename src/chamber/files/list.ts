/**
 * One directory of the project, one level (the page asks again when a folder is opened): directories first,
 * then files, each by name; what `.gitignore` hides left out; a symlink listed as what it points to, or marked
 * `outside` when it leads out of the project (it is shown, never followed).
 */
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { insideProject } from "../attachments/attach.js";
import { SessionError } from "../session-error.js";
import { type FileEntry, type FileListing, LIST_MAX_ENTRIES } from "./files-wire.js";
import { ignorerFor, isAlwaysHidden } from "./ignore.js";
import { projectDir } from "./project-path.js";

async function entryOf(root: string, dirReal: string, rel: string, d: Dirent): Promise<FileEntry | undefined> {
	const path = rel ? `${rel}/${d.name}` : d.name;
	const full = join(dirReal, d.name);
	if (d.isSymbolicLink()) {
		let target: string;
		try {
			target = await realpath(full);
		} catch {
			return undefined; // a dangling link: nothing to show
		}
		if (!insideProject(root, target)) return { name: d.name, path, kind: "file", link: true, outside: true };
		const info = await stat(target).catch(() => undefined);
		if (!info) return undefined;
		return info.isDirectory()
			? { name: d.name, path, kind: "dir", link: true }
			: { name: d.name, path, kind: "file", size: info.size, link: true };
	}
	if (d.isDirectory()) return { name: d.name, path, kind: "dir" };
	if (!d.isFile()) return undefined; // sockets, FIFOs, devices: nothing a preview could show
	const info = await stat(full).catch(() => undefined);
	return info ? { name: d.name, path, kind: "file", size: info.size } : undefined;
}

export async function listProjectDir(root: string, dir: string): Promise<FileListing> {
	const { rel, real } = projectDir(root, "dir", dir);
	const ignorer = await ignorerFor(root);
	let dirents: Dirent[];
	try {
		dirents = await readdir(real, { withFileTypes: true });
	} catch (error) {
		throw new SessionError("bad_file", `dir: ${rel || "."} cannot be read: ${(error as Error).message}`);
	}
	const shown = dirents.filter((d) => !isAlwaysHidden(d.name, ignorer.kind === "git"));
	const named = (d: Dirent) => (rel ? `${rel}/${d.name}` : d.name) + (d.isDirectory() ? "/" : "");
	const hidden = await ignorer.ignored(shown.map(named));
	const kept = shown.filter((d) => !hidden.has(named(d)));
	const entries = (await Promise.all(kept.map((d) => entryOf(root, real, rel, d)))).filter(
		(e): e is FileEntry => e !== undefined,
	);
	entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === "dir" ? -1 : 1));
	const truncated = entries.length > LIST_MAX_ENTRIES;
	return {
		dir: rel,
		entries: truncated ? entries.slice(0, LIST_MAX_ENTRIES) : entries,
		...(truncated ? { truncated: true as const } : {}),
		ignore: ignorer.kind,
	};
}
