/**
 * Issue 33, worktrees, in the new-session form and the session list: the "in a new worktree" choice with its
 * branch name, and a session's branch as the list shows it.
 */
import { api } from "../api.js";
import type { SessionSummary, WorktreeView } from "../types.js";
import { visible } from "../visible.js";

/** git's branch mark (two commits joining), drawn here rather than relying on a font having U+2387. */
export function BranchIcon() {
	return (
		<svg
			class="icon"
			viewBox="0 0 24 24"
			width="12"
			height="12"
			fill="none"
			stroke="currentColor"
			stroke-width="2"
			stroke-linecap="round"
			stroke-linejoin="round"
			aria-hidden="true"
		>
			<path d="M6 3v12M18 9a3 3 0 1 0 0-.01M6 21a3 3 0 1 0 0-.01M18 9a9 9 0 0 1-9 9" />
		</svg>
	);
}

/** A session's branch in the list: absent outside git; marked as a worktree when its folder is a linked one. */
export function BranchMark({ session }: { session: SessionSummary }) {
	if (!session.branch) return null;
	return (
		<span
			class={`session-branch${session.worktree ? " in-worktree" : ""}`}
			data-testid="session-branch"
			title={session.worktree ? `Worktree on branch ${session.branch}` : `Branch ${session.branch}`}
		>
			<BranchIcon />
			<span class="session-branch-name">{visible(session.branch)}</span>
		</span>
	);
}

export interface WorktreeChoice {
	on: boolean;
	branch: string;
}

export const NO_WORKTREE: WorktreeChoice = { on: false, branch: "" };

/** The form's "In a new worktree" box and, when ticked, the branch name (empty: the daemon names one). */
export function WorktreeFields({
	choice,
	onChange,
}: {
	choice: WorktreeChoice;
	onChange: (c: WorktreeChoice) => void;
}) {
	return (
		<div class="worktree-fields">
			<label class="worktree-toggle">
				<input
					type="checkbox"
					data-testid="new-session-worktree"
					checked={choice.on}
					onChange={(e) => onChange({ ...choice, on: e.currentTarget.checked })}
				/>
				In a new git worktree
			</label>
			{choice.on && (
				<input
					data-testid="new-session-branch"
					value={choice.branch}
					maxLength={100}
					placeholder="Branch (optional)"
					title="The new branch the worktree is on; empty: pier names one"
					aria-label="New branch name"
					onInput={(e) => onChange({ ...choice, branch: e.currentTarget.value })}
				/>
			)}
		</div>
	);
}

/**
 * The folder a new session starts in when the form asks for a worktree: the worktree made for it, made once and
 * kept in `made` while the trust question is open, so answering it does not make a second one.
 */
export async function worktreeCwd(
	cwd: string,
	choice: WorktreeChoice,
	made: { current: WorktreeView | undefined },
): Promise<string | undefined> {
	if (!choice.on) return undefined;
	if (!made.current) {
		const branch = choice.branch.trim();
		made.current = (await api.createWorktree({ ...(cwd ? { cwd } : {}), ...(branch ? { branch } : {}) })).worktree;
	}
	return made.current.cwd;
}
