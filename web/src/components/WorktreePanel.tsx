/**
 * Issue 33, worktrees: the worktree a session works in, in the composer's row (shown only for a worktree pier
 * made). It says the branch, the branch it came from and what is uncommitted, and merges the branch into its
 * base (committing the uncommitted work with a message when given one) or removes the worktree. The daemon
 * decides every refusal (uncommitted work, the base checkout elsewhere, a conflict) and the panel shows its words.
 */
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError, api, describeError } from "../api.js";
import type { WorktreeStatus } from "../types.js";
import { visible } from "../visible.js";
import { useConfirm } from "./Confirm.js";
import { useToast } from "./Toasts.js";
import { BranchIcon } from "./WorktreeBranch.js";

export function WorktreePanel({ sessionId }: { sessionId: string }) {
	const [status, setStatus] = useState<WorktreeStatus | null>(null);
	const [note, setNote] = useState<string | undefined>();
	const [error, setError] = useState<string | undefined>();
	const [message, setMessage] = useState("");
	const [busy, setBusy] = useState(false);
	const confirm = useConfirm();
	const toast = useToast();

	const load = useCallback(
		() =>
			api.worktree(sessionId).then(
				(r) => setStatus(r.worktree),
				() => setStatus(null),
			),
		[sessionId],
	);
	useEffect(() => {
		setStatus(null);
		setNote(undefined);
		setError(undefined);
		setMessage("");
		void load();
	}, [load]);
	if (!status) return null;

	const act = async (run: () => Promise<void>) => {
		setBusy(true);
		setError(undefined);
		setNote(undefined);
		try {
			await run();
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};
	const merge = () =>
		act(async () => {
			const r = await api.mergeWorktree(sessionId, message.trim() || undefined);
			setMessage("");
			setNote(r.message);
			await load();
		});
	const remove = () =>
		act(async () => {
			let r: Awaited<ReturnType<typeof api.removeWorktree>>;
			try {
				r = await api.removeWorktree(sessionId, false);
			} catch (err) {
				if (!(err instanceof ApiError && err.code === "worktree_dirty")) throw err;
				const ok = await confirm(`${err.message} Discard that work and remove the worktree?`, {
					confirmLabel: "Discard and remove",
					danger: true,
				});
				if (!ok) return;
				r = await api.removeWorktree(sessionId, true);
			}
			toast(r.message);
			setStatus(null);
		});

	const dirty = status.uncommitted.length > 0;
	return (
		<details class="worktree-panel" onToggle={(e) => e.currentTarget.open && void load()}>
			<summary data-testid="worktree" title={`Worktree on ${status.branch}, from ${status.base}`}>
				<BranchIcon />
				<span class="session-branch-name">{visible(status.branch)}</span>
			</summary>
			<div class="worktree-body" data-testid="worktree-body">
				<p>
					A worktree of <code title={status.repo}>{visible(status.repo)}</code> on{" "}
					<strong data-testid="worktree-branch">{visible(status.branch)}</strong>, made from{" "}
					<strong data-testid="worktree-base">{visible(status.base)}</strong>.{" "}
					<span data-testid="worktree-ahead">
						{status.ahead === 0
							? `No commit ${visible(status.base)} lacks yet.`
							: `${status.ahead} commit${status.ahead === 1 ? "" : "s"} ${visible(status.base)} lacks.`}
					</span>
				</p>
				{dirty && (
					<>
						<p class="muted">Uncommitted here:</p>
						<ul class="worktree-files" data-testid="worktree-uncommitted">
							{status.uncommitted.map((f) => (
								<li key={f}>
									<code>{visible(f)}</code>
								</li>
							))}
						</ul>
						<label class="worktree-message">
							Commit message (to commit all of it, then merge)
							<input
								data-testid="worktree-commit-message"
								value={message}
								maxLength={2000}
								onInput={(e) => setMessage(e.currentTarget.value)}
							/>
						</label>
					</>
				)}
				<div class="extensions-buttons">
					<button
						type="button"
						class="primary"
						data-testid="worktree-merge"
						disabled={busy}
						onClick={() => void merge()}
					>
						{dirty && message.trim() ? "Commit and merge" : `Merge into ${visible(status.base)}`}
					</button>
					<button
						type="button"
						class="danger"
						data-testid="worktree-remove"
						disabled={busy}
						onClick={() => void remove()}
					>
						Remove worktree
					</button>
					<button type="button" data-testid="worktree-refresh" disabled={busy} onClick={() => void load()}>
						Refresh
					</button>
				</div>
				{note && (
					<p class="worktree-note" role="status" data-testid="worktree-note">
						{visible(note)}
					</p>
				)}
				{error && (
					<div class="inline-error" role="alert" data-testid="worktree-error">
						{visible(error)}
					</div>
				)}
			</div>
		</details>
	);
}
