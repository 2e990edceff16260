/**
 * `<stateDir>/worktrees.json`: the worktrees pier made, and the branch each came from (git does not record it).
 * Only a folder listed here, under `<stateDir>/worktrees/`, is one the merge and remove routes act on: a record
 * that points anywhere else (a hand-edited file) is ignored.
 */
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { realpathSync } from "node:fs";
import { readJsonFile, writeJsonFile } from "../json-file.js";
import type { WorktreeView } from "./wire.js";

interface StoreFile {
	version: 1;
	worktrees: Omit<WorktreeView, "cwd">[];
}

export class WorktreeStore {
	readonly root: string;
	private readonly file: string;

	constructor(stateDir: string) {
		// Canonical, so a session folder (canonical too) is found under it when the state directory is a symlink.
		this.root = join(canonical(resolve(stateDir)), "worktrees");
		this.file = resolve(stateDir, "worktrees.json");
	}

	list(): Omit<WorktreeView, "cwd">[] {
		const data = readJsonFile<StoreFile>(this.file, { version: 1, worktrees: [] });
		return (Array.isArray(data.worktrees) ? data.worktrees : []).filter(
			(w) =>
				typeof w?.path === "string" &&
				typeof w.branch === "string" &&
				typeof w.base === "string" &&
				typeof w.repo === "string" &&
				this.isUnderRoot(w.path),
		);
	}

	/** The record whose folder holds `dir` (the folder itself or one inside it). */
	find(dir: string): Omit<WorktreeView, "cwd"> | undefined {
		return this.list().find((w) => isInside(dir, w.path));
	}

	add(record: Omit<WorktreeView, "cwd">): void {
		this.save([...this.list().filter((w) => w.path !== record.path), record]);
	}

	delete(path: string): void {
		this.save(this.list().filter((w) => w.path !== path));
	}

	/** A worktree folder exactly where `folderFor` puts them: three levels below `<stateDir>/worktrees/`. */
	isUnderRoot(path: string): boolean {
		const rel = relative(this.root, path);
		return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) && rel.split(sep).length === 3;
	}

	/**
	 * `<root>/<repository>-<hash>/<branch>/<repository>`: one folder per repository and branch, and the worktree
	 * itself named as its repository, so the session list shows the project's name (and the branch beside it).
	 */
	folderFor(repoKey: string, branchSlug: string, repoName: string): string {
		return join(this.root, repoKey, branchSlug, repoName);
	}

	private save(worktrees: Omit<WorktreeView, "cwd">[]): void {
		writeJsonFile(this.file, { version: 1, worktrees } satisfies StoreFile);
	}
}

export function isInside(path: string, root: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function canonical(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}
