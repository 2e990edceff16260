/**
 * What the Changes view does to the project: revert a file or a turn to its content from before the agent's change,
 * and, in a git repository, stage files and commit. A revert first checks every file it would touch and refuses
 * as a whole, naming each file, when one is no longer what the agent left: it never overwrites the user's edit.
 * Each revert leaves a row in the transcript (a custom message the model also sees, so it knows its change is gone).
 */
import { type GitError, git } from "./git.js";
import { lstat } from "node:fs/promises";
import { projectPath, writeInProject } from "./project-path.js";
import type { ChangeTracker } from "./tracker.js";
import { type Span, sessionSpans, spanOfRecord, specialOf, stillAgents } from "./view.js";
import type { RevertBody, RevertResult } from "./wire.js";
import { SessionError } from "../session-error.js";

export { CHANGES_ENTRY } from "./wire.js";

/** A refusal of the Changes view with its own code and HTTP status (routes.ts maps it). */
export class ChangesError extends Error {
	constructor(
		readonly status: 404 | 409 | 422 | 500,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

export interface SessionHooks {
	sessionId: string;
	streaming: boolean;
	/** Appends the transcript row (and the model's note). */
	note(text: string, details: Record<string, unknown>): Promise<void>;
}

function spansFor(tracker: ChangeTracker, sessionId: string, body: RevertBody): Span[] {
	const turns = tracker.store(sessionId).turns();
	if (body.turn !== undefined) {
		const turn = turns.find((t) => t.turn === body.turn);
		if (!turn) throw new SessionError("not_found", `turn ${body.turn}: no changes recorded for it in this session`);
		const records = body.path === undefined ? turn.files : turn.files.filter((f) => f.path === body.path);
		if (records.length === 0) throw new SessionError("not_found", `${body.path}: not changed in turn ${body.turn}`);
		return records.map((r) => spanOfRecord(turn, r));
	}
	if (body.path === undefined) throw new SessionError("bad_request", "body: name a path, a turn, or both");
	const span = sessionSpans(turns).find((s) => s.path === body.path);
	if (!span) throw new SessionError("not_found", `${body.path}: not changed by the agent in this session`);
	return [span];
}

export async function revert(tracker: ChangeTracker, hooks: SessionHooks, body: RevertBody): Promise<RevertResult> {
	if (hooks.streaming || tracker.running)
		throw new SessionError("busy", "the agent is running: revert once the run has ended");
	// A path out of the project is refused as such, before anything is looked up.
	if (body.path !== undefined) projectPath(tracker.root, body.path);
	return tracker.serial(async () => {
		const { sessionId } = hooks;
		const spans = spansFor(tracker, sessionId, body).filter((s) => !s.records.every((r) => r.reverted));
		if (spans.length === 0) throw new ChangesError(409, "already_reverted", "already reverted: nothing to do");
		// Every file is checked before any is written: a turn reverts whole or not at all.
		const refused: string[] = [];
		for (const span of spans) {
			const special = specialOf(span);
			if (special)
				throw new SessionError(
					"bad_file",
					`${span.path}: a ${special === "symlink" ? "symbolic link" : special}; revert it by hand`,
				);
			projectPath(tracker.root, span.path);
			if (!(await stillAgents(tracker, sessionId, span))) refused.push(span.path);
		}
		if (refused.length > 0) {
			const which = refused.join(", ");
			throw new ChangesError(
				409,
				"changed_since",
				`${which} changed since the agent's change (edited by you, another program or a later turn); nothing was reverted, so your edits are kept. Revert later turns first, or undo your edit by hand.`,
			);
		}
		for (const span of spans) {
			const name = projectPath(tracker.root, span.path);
			const bytes = span.before === null ? null : await tracker.content(sessionId, span.mode, span.before);
			await writeInProject(tracker.root, name, bytes, span.beforeMode === "100755" ? 0o755 : undefined);
		}
		const at = new Date().toISOString();
		for (const span of spans) for (const record of span.records) record.reverted = at;
		tracker.store(sessionId).save();
		const paths = spans.map((s) => s.path);
		const turnNote = body.turn === undefined ? "" : ` (turn ${body.turn})`;
		const text =
			body.path === undefined
				? `Reverted turn ${body.turn}: ${paths.join(", ")} restored to their content from before that turn.`
				: `Reverted ${paths[0]}${turnNote}: restored to its content from before the agent's change.`;
		await hooks.note(text, { action: "revert", paths, ...(body.turn !== undefined ? { turn: body.turn } : {}) });
		return { reverted: paths, ...(body.turn !== undefined ? { turn: body.turn } : {}) };
	});
}

async function requireGit(tracker: ChangeTracker): Promise<void> {
	if ((await tracker.mode()) !== "git")
		throw new ChangesError(
			409,
			"not_git",
			"the session's directory is not in a git repository: nothing to stage or commit",
		);
}

export async function stage(tracker: ChangeTracker, paths: readonly string[]): Promise<string[]> {
	await requireGit(tracker);
	// Each path is held to the project first (a link out of it, `..`, an absolute path are refused).
	for (const path of paths) {
		const name = projectPath(tracker.root, path);
		if ((await lstat(name).catch(() => undefined))?.isDirectory())
			throw new SessionError("bad_file", `${path}: a directory; stage its files one by one`);
	}
	try {
		await git(tracker.root, ["add", "-A", "--", ...paths.map((p) => `:(literal)${p}`)]);
	} catch (error) {
		throw new ChangesError(422, "git_failed", (error as Error).message);
	}
	return paths.slice();
}

export async function commit(tracker: ChangeTracker, message: string): Promise<{ commit: string; summary: string }> {
	await requireGit(tracker);
	if (!message.trim()) throw new SessionError("bad_request", "message: say what the commit does");
	const nothing = await git(tracker.root, ["diff", "--cached", "--quiet"]).then(
		() => true,
		(error: GitError) => {
			if (error.exitCode === 1) return false;
			throw new ChangesError(500, "git_failed", error.message);
		},
	);
	if (nothing) throw new ChangesError(409, "nothing_staged", "nothing is staged: stage the files to commit first");
	try {
		await git(tracker.root, ["commit", "-q", "-F", "-"], { input: message });
	} catch (error) {
		const stderr = (error as GitError).stderr ?? "";
		if (
			/tell me who you are|unable to auto-detect email|empty ident|no email was given|user\.useConfigOnly/i.test(stderr)
		)
			throw new ChangesError(
				422,
				"no_identity",
				'git has no user identity for this repository: run git config user.name "Your Name" and git config user.email you@example.com (add --global for every repository), then commit again. Nothing was committed; the files stay staged.',
			);
		throw new ChangesError(422, "git_failed", `git commit failed: ${stderr || (error as Error).message}`);
	}
	const { stdout } = await git(tracker.root, ["log", "-1", "--format=%H%x00%s"]);
	const [sha = "", summary = ""] = stdout.toString("utf8").trim().split("\0");
	return { commit: sha, summary };
}
