/**
 * The worktree routes' wire: request bodies (TypeBox, validated by `jsonBody`) and the views they answer. Free of
 * Node imports: the web app imports the types. `docs/chamber-api.md` ("Worktrees") is its prose companion.
 */
import { type Static, Type } from "typebox";

const closed = { additionalProperties: false } as const;

export const WorktreeBodies = {
	/** A worktree on a new branch of the repository holding `cwd` (the daemon's folder when absent). */
	create: Type.Object(
		{
			cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
			/** The new branch; absent or empty: pier names one (`pier/<six hex digits>`). */
			branch: Type.Optional(Type.String({ maxLength: 100 })),
		},
		closed,
	),
	/** `commit`: commit everything uncommitted in the worktree with this message first (else such work refuses). */
	merge: Type.Object({ commit: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) }, closed),
	/** `force`: remove even with uncommitted work, which is lost (the page asks first). */
	remove: Type.Object({ force: Type.Optional(Type.Boolean()) }, closed),
};

export type CreateWorktreeBody = Static<typeof WorktreeBodies.create>;
export type MergeWorktreeBody = Static<typeof WorktreeBodies.merge>;
export type RemoveWorktreeBody = Static<typeof WorktreeBodies.remove>;

/** A worktree pier made: where it is, its branch and the branch it came from. */
export interface WorktreeView {
	/** The worktree's folder (under pier's state directory, `worktrees/`). */
	path: string;
	/** Where a session in it works: `path`, or the same sub-folder the project folder was in its repository. */
	cwd: string;
	branch: string;
	/** The branch it was made from, and that a merge goes into. */
	base: string;
	/** The checkout it was made from (the repository's main checkout, or the linked one the user named). */
	repo: string;
	createdAt: string;
}

/** `GET /sessions/:id/worktree`: the worktree with what is in it now. */
export interface WorktreeStatus extends WorktreeView {
	/** Uncommitted files in the worktree (relative to it; at most 200). */
	uncommitted: string[];
	/** Commits on `branch` that `base` does not have. */
	ahead: number;
}

export interface WorktreeMerged {
	merged: true;
	branch: string;
	base: string;
	/** The base branch's commit after the merge. */
	commit: string;
	/** Set when `commit` was given and there was work to commit: that commit, on the worktree's branch. */
	committed?: string;
	message: string;
}

export interface WorktreeRemoved {
	removed: true;
	branch: string;
	/** The branch went too: it had nothing the base branch lacks. Otherwise it is kept, and `message` says so. */
	branchDeleted: boolean;
	message: string;
}
