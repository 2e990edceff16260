/**
 * The Changes view on the wire (`/api/pi/sessions/:id/changes…`, docs/chamber-api.md "Changes"): the files the
 * agent changed in a session and in each of its turns, with unified diffs, and the bodies of revert, stage and commit.
 */
import { type Static, Type } from "typebox";

/** The customType of the transcript row a revert leaves: a custom message, so the model also learns of it. */
export const CHANGES_ENTRY = "pier.changes";

/** A path as a request names it: relative to the session's directory. */
const RequestPath = Type.String({ minLength: 1, maxLength: 4096 });

export const ChangesBodies = {
	/** One file (`path`) or a whole turn (`turn` without `path`); without `turn`, the file over the whole session. */
	revert: Type.Object(
		{
			path: Type.Optional(RequestPath),
			turn: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
		},
		{ additionalProperties: false },
	),
	stage: Type.Object(
		{ paths: Type.Array(RequestPath, { minItems: 1, maxItems: 1000 }) },
		{ additionalProperties: false },
	),
	commit: Type.Object({ message: Type.String({ minLength: 1, maxLength: 20_000 }) }, { additionalProperties: false }),
};

export type RevertBody = Static<typeof ChangesBodies.revert>;

/** How the view knows what changed: git trees before and after each run, or pier's own copies before each write. */
export type ChangesMode = "git" | "snapshots";

export type FileStatus = "added" | "modified" | "deleted";

export interface FileChangeView {
	/** Relative to the session's directory, '/'-separated. */
	path: string;
	status: FileStatus;
	binary: boolean;
	/** A unified diff (`---`/`+++` headers, `@@` hunks); absent for binary files and files too large to show. */
	diff?: string;
	/** Why there is no diff although the file is text (too large). */
	note?: string;
	added: number;
	removed: number;
	/** When a revert restored the content from before the agent's change (ISO). */
	reverted?: string;
	/**
	 * The file is no longer what the agent left (the user, another program or a later turn changed it): a revert
	 * would refuse. Absent when it is still the agent's content.
	 */
	changedSince?: boolean;
	/** A symbolic link or submodule: shown, never reverted by the view. */
	special?: "symlink" | "submodule";
}

export interface TurnChangesView {
	/** 1-based, counting every run of the session (a turn with no changes is not listed). */
	turn: number;
	/** The prompt that started the run (cut to 200 characters). */
	prompt: string;
	startedAt: string;
	endedAt: string;
	files: FileChangeView[];
}

export interface ChangesView {
	mode: ChangesMode;
	/** In a git repository: its branch and what the user's index holds staged, for Commit. */
	git?: { branch?: string; staged: string[] };
	/** The session as a whole: each file from before the first turn that changed it to after the last. */
	files: FileChangeView[];
	turns: TurnChangesView[];
	/** A run is going on: its changes appear when it ends. */
	running: boolean;
}

export interface RevertResult {
	reverted: string[];
	turn?: number;
}
