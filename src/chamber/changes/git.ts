/**
 * The git a Changes view needs, run as the `git` program: a snapshot of the project's working tree as a tree
 * object written through a private index (GIT_INDEX_FILE in pier's state directory, so the user's index, HEAD and
 * branches are never touched; .gitignore is respected because `git add -A` respects it), the files that differ
 * between two such trees, a blob's bytes, and the user's own stage and commit for the view's buttons.
 */
import { execFile } from "node:child_process";

/** A snapshot of a large tree hashes every new file once; after that the private index's stat cache makes it quick. */
const GIT_TIMEOUT_MS = 120_000;
const MAX_OUTPUT = 64 * 1024 * 1024;
/** git's name for "no such side": the all-zero object id of a diff's added or deleted file. */
const ABSENT = /^0+$/;

export class GitError extends Error {
	constructor(
		message: string,
		readonly stderr: string,
		readonly exitCode: number | null,
	) {
		super(message);
	}
}

export interface GitRun {
	stdout: Buffer;
	stderr: string;
}

export function git(
	cwd: string,
	args: readonly string[],
	options: { index?: string; input?: string } = {},
): Promise<GitRun> {
	return new Promise((resolve, reject) => {
		const env: NodeJS.ProcessEnv = { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" };
		if (options.index) env.GIT_INDEX_FILE = options.index;
		const child = execFile(
			"git",
			["-c", "core.quotepath=off", ...args],
			{ cwd, env, encoding: "buffer", maxBuffer: MAX_OUTPUT, timeout: GIT_TIMEOUT_MS },
			(error, stdout, stderr) => {
				const err = stderr.toString("utf8").trim();
				if (error) {
					const code = typeof (error as { code?: unknown }).code === "number" ? (error as { code: number }).code : null;
					reject(new GitError(`git ${args[0]}: ${err || error.message}`, err, code));
				} else resolve({ stdout, stderr: err });
			},
		);
		if (options.input !== undefined) child.stdin?.end(options.input);
	});
}

/** The repository's top level when `cwd` is inside a work tree, else undefined (no git, or not a repository). */
export async function workTreeOf(cwd: string): Promise<string | undefined> {
	try {
		const { stdout } = await git(cwd, ["rev-parse", "--show-toplevel"]);
		const top = stdout.toString("utf8").trim();
		return top || undefined;
	} catch {
		return undefined;
	}
}

/**
 * The project's files (the session's directory and below, .gitignore applied) as a tree object, through the
 * private index `index`. `exclude`: a path under the project to leave out (pier's own state, when it lives there).
 */
export async function snapshotTree(cwd: string, index: string, exclude?: string): Promise<string> {
	const pathspec = ["--", ".", ...(exclude ? [`:(exclude,literal)${exclude}`] : [])];
	await git(cwd, ["add", "-A", "--ignore-errors", ...pathspec], { index }).catch((error: GitError) => {
		// --ignore-errors still adds what it can: an unreadable file fails only itself (exit 1, a warning).
		if (error.exitCode !== 1) throw error;
	});
	const { stdout } = await git(cwd, ["write-tree"], { index });
	return stdout.toString("utf8").trim();
}

export interface TreeChange {
	/** Relative to the session's directory, with '/' separators. */
	path: string;
	before: string | null;
	after: string | null;
	/** git's file modes: 100644/100755 files, 120000 a symbolic link, 160000 a submodule. */
	beforeMode: string;
	afterMode: string;
}

/** The files that differ between two snapshot trees, under the session's directory (`--relative`), no renames. */
export async function treeChanges(cwd: string, before: string, after: string): Promise<TreeChange[]> {
	if (before === after) return [];
	const { stdout } = await git(cwd, ["diff-tree", "-r", "-z", "--no-renames", "--relative", before, after]);
	const parts = stdout.toString("utf8").split("\0");
	const out: TreeChange[] = [];
	for (let i = 0; i + 1 < parts.length; i += 2) {
		const meta = parts[i]!.replace(/^:/, "").split(" ");
		const path = parts[i + 1]!;
		const [beforeMode = "", afterMode = "", a = "", b = ""] = meta;
		out.push({
			path,
			before: ABSENT.test(a) ? null : a,
			after: ABSENT.test(b) ? null : b,
			beforeMode,
			afterMode,
		});
	}
	return out;
}

export async function readBlob(cwd: string, id: string): Promise<Buffer> {
	return (await git(cwd, ["cat-file", "blob", id])).stdout;
}

/** The paths staged in the user's own index (relative to the session's directory). */
export async function stagedPaths(cwd: string): Promise<string[]> {
	const { stdout } = await git(cwd, ["diff", "--cached", "--name-only", "-z", "--relative"]);
	return stdout.toString("utf8").split("\0").filter(Boolean);
}

export async function currentBranch(cwd: string): Promise<string | undefined> {
	try {
		const { stdout } = await git(cwd, ["symbolic-ref", "--short", "-q", "HEAD"]);
		return stdout.toString("utf8").trim() || undefined;
	} catch {
		return undefined;
	}
}
