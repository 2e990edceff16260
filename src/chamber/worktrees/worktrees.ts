/**
 * Worktrees for sessions: a new branch checked out in its own folder (`git worktree add -b`), so a session's
 * edits stay out of the user's checkout until they are merged into the branch the worktree came from, or the
 * worktree is removed. Every refusal says what is in the way (the uncommitted files, the branch the base
 * checkout is on, the conflicting files) and leaves both checkouts as they were.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, realpathSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { firstLines, git, gitOk, nameFiles, uncommitted } from "./git.js";
import { WorktreeStore } from "./store.js";
import type { WorktreeMerged, WorktreeRemoved, WorktreeStatus, WorktreeView } from "./wire.js";

/** A refusal the user can act on: its HTTP status and code are the routes' answer. */
export class WorktreeError extends Error {
	constructor(
		readonly status: 403 | 404 | 409 | 422 | 500,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

const MAX_BRANCH = 100;
/** Checking out or merging a large tree takes longer than a status. */
const SLOW_MS = 120_000;

export class Worktrees {
	readonly store: WorktreeStore;
	/** One git operation at a time per repository: two merges into one checkout would race. */
	private readonly queues = new Map<string, Promise<unknown>>();

	constructor(stateDir: string) {
		this.store = new WorktreeStore(stateDir);
	}

	/** A worktree on a new branch of the repository holding `cwd`, made from the branch that checkout is on. */
	async create(cwd: string, requested?: string): Promise<WorktreeView> {
		const dir = realDir(cwd, "cwd");
		const top = await topLevel(dir);
		if (!top) throw new WorktreeError(422, "not_a_repository", `cwd: ${dir} is not in a git repository`);
		return this.serial(top, async () => {
			const base = await currentBranch(top);
			if (!base)
				throw new WorktreeError(
					409,
					"detached_head",
					`${top} is not on a branch (a detached HEAD): check out the branch the worktree should start from`,
				);
			if ((await git(top, ["rev-parse", "--verify", "--quiet", "HEAD"])).code !== 0)
				throw new WorktreeError(409, "no_commit", `${top} has no commit yet: commit something to branch from`);
			const branch = requested?.trim() ? await checkBranchName(top, requested.trim()) : await freshBranch(top);
			const repoName = safeSlug(basename(top)) || "repo";
			const repoKey = `${repoName}-${createHash("sha256").update(top).digest("hex").slice(0, 8)}`;
			let path = this.store.folderFor(repoKey, safeSlug(branch), repoName);
			for (let n = 2; existsSync(dirname(path)); n++)
				path = this.store.folderFor(repoKey, `${safeSlug(branch)}-${n}`, repoName);
			const added = await git(top, ["worktree", "add", "-b", branch, path, `refs/heads/${base}`], SLOW_MS);
			if (added.code !== 0)
				throw new WorktreeError(
					422,
					"worktree_failed",
					`git could not add the worktree: ${firstLines(added.stderr || added.stdout)}`,
				);
			const record = { path, branch, base, repo: top, createdAt: new Date().toISOString() };
			this.store.add(record);
			return { ...record, cwd: join(path, relative(top, dir)) };
		});
	}

	/** The worktree a session folder is in, if pier made it; undefined for any other folder. */
	find(cwd: string): WorktreeView | undefined {
		const dir = canonical(cwd);
		const record = this.store.find(dir);
		return record ? { ...record, cwd: dir } : undefined;
	}

	async status(cwd: string): Promise<WorktreeStatus | undefined> {
		const view = this.find(cwd);
		if (!view || !existsSync(view.path)) return undefined;
		const files = await uncommitted(view.path);
		return { ...view, uncommitted: files.slice(0, 200), ahead: await ahead(view.repo, view.base, view.branch) };
	}

	/**
	 * Merges the worktree's branch into its base branch, in the checkout it was made from. Refuses, changing
	 * nothing, when the worktree has uncommitted work (unless `commit` names the commit to make of it), when that
	 * checkout is not on the base branch or has uncommitted changes to tracked files, and when the merge
	 * conflicts (the merge is aborted).
	 */
	async merge(cwd: string, options: { commit?: string } = {}): Promise<WorktreeMerged> {
		const view = this.mustFind(cwd);
		return this.serial(view.repo, async () => {
			const dirty = await uncommitted(view.path);
			if (dirty.length > 0 && !options.commit)
				throw new WorktreeError(
					409,
					"worktree_dirty",
					`The worktree has uncommitted work: ${nameFiles(dirty)}. Commit it first (or merge with a commit message to commit all of it), or remove the worktree.`,
				);
			// Before anything is committed: a refusal here leaves the worktree as it was too.
			await this.checkBase(view);
			let committed: string | undefined;
			if (dirty.length > 0 && options.commit) {
				await gitOk(view.path, ["add", "-A"]);
				const made = await git(view.path, ["commit", "-q", "-m", options.commit]);
				if (made.code !== 0)
					throw new WorktreeError(
						409,
						"commit_failed",
						`git could not commit in the worktree: ${firstLines(made.stderr || made.stdout)}`,
					);
				committed = (await gitOk(view.path, ["rev-parse", "HEAD"])).trim();
			}
			const count = await ahead(view.repo, view.base, view.branch);
			if (count === 0)
				throw new WorktreeError(
					409,
					"nothing_to_merge",
					`${view.branch} has no commit that ${view.base} lacks: nothing to merge.`,
				);
			const message = `Merge branch '${view.branch}' (pier worktree) into ${view.base}`;
			const merged = await git(
				view.repo,
				["merge", "--no-ff", "--no-edit", "-m", message, `refs/heads/${view.branch}`],
				SLOW_MS,
			);
			if (merged.code !== 0) {
				const conflicts = (await git(view.repo, ["diff", "--name-only", "--diff-filter=U", "-z"])).stdout
					.split("\0")
					.filter(Boolean);
				await git(view.repo, ["merge", "--abort"]);
				if (conflicts.length > 0)
					throw new WorktreeError(
						409,
						"merge_conflict",
						`Merging ${view.branch} into ${view.base} conflicts in ${nameFiles(conflicts)}. The merge was aborted: ${view.repo} and the worktree are as they were. Resolve it in the worktree (merge ${view.base} into ${view.branch} there), then merge again.`,
					);
				throw new WorktreeError(
					409,
					"merge_failed",
					`git could not merge ${view.branch} into ${view.base} (nothing changed): ${firstLines(merged.stderr || merged.stdout)}`,
				);
			}
			const commit = (await gitOk(view.repo, ["rev-parse", "HEAD"])).trim();
			return {
				merged: true,
				branch: view.branch,
				base: view.base,
				commit,
				...(committed ? { committed } : {}),
				message: `Merged ${view.branch} into ${view.base} (${count} commit${count === 1 ? "" : "s"}) in ${view.repo}.`,
			};
		});
	}

	/**
	 * Removes the worktree's folder (git's `worktree remove`). Uncommitted work refuses it unless `force`. The
	 * branch is deleted only when the base branch has all of it; otherwise it is kept, and the answer says so.
	 */
	async remove(cwd: string, options: { force?: boolean } = {}): Promise<WorktreeRemoved> {
		const view = this.mustFind(cwd);
		return this.serial(view.repo, async () => {
			if (!options.force) {
				const dirty = await uncommitted(view.path);
				if (dirty.length > 0)
					throw new WorktreeError(
						409,
						"worktree_dirty",
						`The worktree has uncommitted work: ${nameFiles(dirty)}. Commit or merge it first, or remove with force to discard it.`,
					);
			}
			const removed = await git(
				view.repo,
				["worktree", "remove", ...(options.force ? ["--force"] : []), view.path],
				SLOW_MS,
			);
			if (removed.code !== 0)
				throw new WorktreeError(
					409,
					"remove_failed",
					`git could not remove the worktree: ${firstLines(removed.stderr || removed.stdout)}`,
				);
			this.store.delete(view.path);
			removeIfEmpty(dirname(view.path));
			removeIfEmpty(dirname(dirname(view.path)));
			const merged =
				(await git(view.repo, ["merge-base", "--is-ancestor", `refs/heads/${view.branch}`, `refs/heads/${view.base}`]))
					.code === 0;
			const deleted = merged && (await git(view.repo, ["branch", "-d", view.branch])).code === 0;
			return {
				removed: true,
				branch: view.branch,
				branchDeleted: deleted,
				message: deleted
					? `Removed the worktree and its branch ${view.branch} (${view.base} has all of it).`
					: `Removed the worktree. Its branch ${view.branch} is kept: it has commits ${view.base} lacks (git branch -D ${view.branch} deletes it).`,
			};
		});
	}

	private mustFind(cwd: string): WorktreeView {
		const view = this.find(cwd);
		if (!view)
			throw new WorktreeError(
				409,
				"not_a_worktree",
				`${cwd} is not in a worktree pier made: nothing to merge or remove`,
			);
		if (!existsSync(view.path)) {
			this.store.delete(view.path);
			throw new WorktreeError(404, "not_found", `the worktree ${view.path} is gone`);
		}
		return view;
	}

	/** The base checkout must be on the base branch with nothing uncommitted in tracked files. */
	private async checkBase(view: WorktreeView): Promise<void> {
		if (!existsSync(view.repo)) throw new WorktreeError(404, "not_found", `the base checkout ${view.repo} is gone`);
		const on = await currentBranch(view.repo);
		if (on !== view.base)
			throw new WorktreeError(
				409,
				"base_moved",
				`${view.repo} is on ${on ? `branch ${on}` : "a detached HEAD"}, not ${view.base}: check out ${view.base} there, then merge again.`,
			);
		const dirty = await uncommitted(view.repo, { tracked: true });
		if (dirty.length > 0)
			throw new WorktreeError(
				409,
				"base_dirty",
				`${view.repo} has uncommitted changes: ${nameFiles(dirty)}. Commit or stash them there, then merge again.`,
			);
	}

	private serial<T>(key: string, run: () => Promise<T>): Promise<T> {
		const previous = this.queues.get(key) ?? Promise.resolve();
		const next = previous.then(run, run);
		const settled = next.catch(() => {});
		this.queues.set(key, settled);
		void settled.then(() => {
			if (this.queues.get(key) === settled) this.queues.delete(key);
		});
		return next;
	}
}

function realDir(path: string, field: string): string {
	let real: string;
	try {
		real = realpathSync(path);
	} catch {
		throw new WorktreeError(422, "bad_request", `${field}: ${path} does not exist`);
	}
	if (!statSync(real).isDirectory())
		throw new WorktreeError(422, "bad_request", `${field}: ${path} is not a directory`);
	return real;
}

function canonical(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return resolve(path);
	}
}

async function topLevel(dir: string): Promise<string | undefined> {
	const r = await git(dir, ["rev-parse", "--show-toplevel"]);
	return r.code === 0 && r.stdout.trim() ? canonical(r.stdout.trim()) : undefined;
}

async function currentBranch(dir: string): Promise<string | undefined> {
	const r = await git(dir, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
	return r.code === 0 ? r.stdout.trim() || undefined : undefined;
}

async function ahead(repo: string, base: string, branch: string): Promise<number> {
	const r = await git(repo, ["rev-list", "--count", `refs/heads/${base}..refs/heads/${branch}`]);
	return r.code === 0 ? Number(r.stdout.trim()) || 0 : 0;
}

/** The user's branch name, if git would take it and no branch has it; a refusal names what is wrong. */
async function checkBranchName(repo: string, name: string): Promise<string> {
	if (name.length > MAX_BRANCH) throw new WorktreeError(422, "bad_branch", `branch: at most ${MAX_BRANCH} characters`);
	// A leading dash would read as an option; git refuses it as a branch name anyway.
	const valid =
		!name.startsWith("-") &&
		name !== "HEAD" &&
		(await git(repo, ["check-ref-format", "--branch", name])).code === 0 &&
		(await git(repo, ["check-ref-format", `refs/heads/${name}`])).code === 0;
	if (!valid)
		throw new WorktreeError(
			422,
			"bad_branch",
			`branch: git does not take "${name}" as a branch name (no spaces, "..", "~", "^", ":", "?", "*", "[", "\\", leading "-" or trailing "." or "/")`,
		);
	if ((await git(repo, ["show-ref", "--verify", "--quiet", `refs/heads/${name}`])).code === 0)
		throw new WorktreeError(409, "branch_exists", `branch: ${name} exists already; choose another name`);
	return name;
}

async function freshBranch(repo: string): Promise<string> {
	for (;;) {
		const name = `pier/${randomBytes(3).toString("hex")}`;
		if ((await git(repo, ["show-ref", "--verify", "--quiet", `refs/heads/${name}`])).code !== 0) return name;
	}
}

/** A branch name as one folder name: `feature/x` → `feature-x`; nothing but letters, digits, `.`, `_`, `-`. */
function safeSlug(name: string): string {
	return name
		.replace(/[/\\]+/g, "-")
		.replace(/[^A-Za-z0-9._-]+/g, "_")
		.replace(/^[.-]+/, "")
		.slice(0, 80);
}

function removeIfEmpty(dir: string): void {
	try {
		rmdirSync(dir);
	} catch {
		// Not empty (other worktrees of the repository) or gone: either is fine.
	}
}
