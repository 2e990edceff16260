/**
 * The branch a session's folder is on, for the session list: read from git's `HEAD` file, never by running git.
 * Where a folder's `HEAD` is (walking up to the nearest `.git`, following a linked worktree's `gitdir:` file) is
 * found once and kept; the `HEAD` file itself is re-read only when its mtime or size changes, so a listing costs
 * one `stat` per project folder. A folder that is not in a repository is looked at again after a while (it may
 * become one).
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

export interface BranchFacts {
	/** The checked-out branch; a detached HEAD shows as its commit's first 7 hex digits. */
	branch?: string;
	/** The folder is in a linked worktree (`git worktree add`), not a repository's main checkout. */
	worktree?: true;
}

interface Located {
	head: string | undefined;
	linked: boolean;
	at: number;
}

const NOT_A_REPO_RECHECK_MS = 30_000;
const MAX_ENTRIES = 2_000;
const located = new Map<string, Located>();
const heads = new Map<string, { ino: number; mtimeMs: number; size: number; branch: string | undefined }>();

/** The branch facts of `cwd` (empty when it is not in a git repository or its HEAD cannot be read). */
export function branchOf(cwd: string, now = Date.now()): BranchFacts {
	let where = located.get(cwd);
	if (!where || (where.head === undefined && now - where.at > NOT_A_REPO_RECHECK_MS)) {
		if (located.size >= MAX_ENTRIES) located.clear();
		where = { ...locateHead(cwd), at: now };
		located.set(cwd, where);
	}
	if (!where.head) return {};
	const branch = readHead(where.head);
	if (branch === undefined) {
		// The repository went away (a removed worktree): find it again next time.
		located.delete(cwd);
		return {};
	}
	return { branch, ...(where.linked ? { worktree: true as const } : {}) };
}

function locateHead(cwd: string): { head: string | undefined; linked: boolean } {
	let dir = resolve(cwd);
	// A folder that is gone (a removed worktree) is on no branch, whatever repository holds the place it was.
	if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return { head: undefined, linked: false };
	for (;;) {
		const dotGit = join(dir, ".git");
		const stat = statSync(dotGit, { throwIfNoEntry: false });
		if (stat?.isDirectory()) return { head: join(dotGit, "HEAD"), linked: false };
		if (stat?.isFile()) {
			// A linked worktree (or a submodule): `gitdir: <path>`, relative to the folder holding the file.
			const line = safeRead(dotGit)?.split("\n", 1)[0] ?? "";
			const match = /^gitdir:\s*(.+)$/.exec(line.trim());
			if (!match) return { head: undefined, linked: false };
			const gitdir = isAbsolute(match[1]!) ? match[1]! : resolve(dir, match[1]!);
			return { head: join(gitdir, "HEAD"), linked: /[\\/]worktrees[\\/][^\\/]+[\\/]?$/.test(gitdir) };
		}
		const parent = dirname(dir);
		if (parent === dir) return { head: undefined, linked: false };
		dir = parent;
	}
}

function readHead(file: string): string | undefined {
	const stat = statSync(file, { throwIfNoEntry: false });
	if (!stat?.isFile()) return undefined;
	const known = heads.get(file);
	// git replaces HEAD by a rename: a new inode, even within one mtime tick.
	if (known && known.ino === stat.ino && known.mtimeMs === stat.mtimeMs && known.size === stat.size)
		return known.branch;
	const text = (safeRead(file) ?? "").trim();
	const ref = /^ref:\s*refs\/heads\/(.+)$/.exec(text);
	const branch = ref ? ref[1]! : /^[0-9a-f]{40,64}$/.test(text) ? text.slice(0, 7) : undefined;
	if (heads.size >= MAX_ENTRIES) heads.clear();
	heads.set(file, { ino: stat.ino, mtimeMs: stat.mtimeMs, size: stat.size, branch });
	return branch;
}

function safeRead(file: string): string | undefined {
	try {
		return readFileSync(file, "utf8").slice(0, 4096);
	} catch {
		return undefined;
	}
}
