/**
 * The Changes view of a session (`GET /api/pi/sessions/:id/changes`): the files the agent changed over the whole
 * session or in one turn, each with its unified diff, and Revert for a file or a turn; in a git repository also
 * Stage and Commit. It opens as a sheet from the composer's row (the whole screen on a phone) and reads again
 * when a run ends while it is open. A refused revert says why, naming the file; nothing is overwritten.
 */
import { useEffect, useState } from "preact/hooks";
import type { ChangesView, FileChangeView, TurnChangesView } from "../../../src/chamber/changes/wire.js";
import { api, describeError } from "../api.js";
import { visible, visiblePath } from "../visible.js";
import { ChangesDiff } from "./ChangesDiff.js";

type Scope = "session" | number;

const STATUS_LETTER = { added: "A", modified: "M", deleted: "D" } as const;

export function ChangesPanel({ sessionId, streaming }: { sessionId: string; streaming: boolean }) {
	const [open, setOpen] = useState(false);
	const [view, setView] = useState<ChangesView | undefined>();
	const [scope, setScope] = useState<Scope>("session");
	const [error, setError] = useState<string | undefined>();
	const [notice, setNotice] = useState<string | undefined>();
	const [message, setMessage] = useState("");
	const [busy, setBusy] = useState(false);

	const load = () =>
		api.changes<ChangesView>(sessionId).then(
			(v) => {
				setView(v);
				setError(undefined);
			},
			(err) => setError(describeError(err)),
		);
	// Read when opened, and again when a run ends while it is open.
	useEffect(() => {
		if (open && !streaming) void load();
	}, [open, streaming, sessionId]);
	useEffect(() => {
		setView(undefined);
		setScope("session");
	}, [sessionId]);

	const act = async (what: () => Promise<string>) => {
		setBusy(true);
		setError(undefined);
		setNotice(undefined);
		try {
			setNotice(await what());
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
			await load();
		}
	};
	const revert = (body: { path?: string; turn?: number }) =>
		act(async () => {
			const r = await api.changesRevert<{ reverted: string[] }>(sessionId, body);
			return `Reverted ${r.reverted.join(", ")}.`;
		});
	const stage = (path: string) =>
		act(async () => {
			await api.changesStage(sessionId, [path]);
			return `Staged ${path}.`;
		});
	const commit = () =>
		act(async () => {
			const r = await api.changesCommit<{ commit: string; summary: string }>(sessionId, message);
			setMessage("");
			return `Committed ${r.commit.slice(0, 7)}: ${r.summary}`;
		});

	const turn: TurnChangesView | undefined = scope === "session" ? undefined : view?.turns.find((t) => t.turn === scope);
	const files = scope === "session" ? view?.files : turn?.files;
	const git = view?.mode === "git" ? view.git : undefined;

	return (
		<div class="changes-panel">
			<button type="button" data-testid="changes-open" aria-expanded={open} onClick={() => setOpen(!open)}>
				Changes
			</button>
			{open && (
				<section
					class="changes-sheet"
					data-testid="changes"
					aria-label="Changes"
					data-mode={view?.mode}
					onKeyDown={(e) => {
						if (e.key === "Escape") setOpen(false);
					}}
				>
					<header class="changes-head">
						<strong>Changes</strong>
						<span class="badge" data-testid="changes-mode">
							{view?.mode === "git" ? `git${git?.branch ? ` · ${visible(git.branch)}` : ""}` : view ? "snapshots" : "…"}
						</span>
						<select
							data-testid="changes-scope"
							aria-label="Which changes"
							value={String(scope)}
							onChange={(e) => {
								const v = e.currentTarget.value;
								setScope(v === "session" ? "session" : Number(v));
							}}
						>
							<option value="session">Whole session</option>
							{view?.turns.map((t) => (
								<option key={t.turn} value={String(t.turn)}>
									Turn {t.turn}: {visible(t.prompt).slice(0, 60)}
								</option>
							))}
						</select>
						<button type="button" data-testid="changes-refresh" onClick={() => void load()}>
							Refresh
						</button>
						<button type="button" data-testid="changes-close" aria-label="Close" onClick={() => setOpen(false)}>
							×
						</button>
					</header>
					{view?.running && <p class="muted">The agent is running: its changes show when the run ends.</p>}
					{turn && (
						<div class="changes-turn">
							<span class="muted">“{visible(turn.prompt)}”</span>
							<button
								type="button"
								data-testid="changes-revert-turn"
								disabled={busy || streaming || turn.files.every((f) => f.reverted)}
								onClick={() => void revert({ turn: turn.turn })}
							>
								Revert turn {turn.turn}
							</button>
						</div>
					)}
					{error && (
						<div class="inline-error" role="alert" data-testid="changes-error">
							{error}
						</div>
					)}
					{notice && (
						<div class="changes-notice" role="status" data-testid="changes-notice">
							{notice}
						</div>
					)}
					{view && files?.length === 0 && <p class="muted">The agent has changed no files in this session yet.</p>}
					<ul class="changes-files">
						{files?.map((f) => (
							<ChangedFile
								key={f.path}
								file={f}
								git={git !== undefined}
								staged={git?.staged.includes(f.path) ?? false}
								disabled={busy || streaming}
								onRevert={() => void revert(turn ? { path: f.path, turn: turn.turn } : { path: f.path })}
								onStage={() => void stage(f.path)}
							/>
						))}
					</ul>
					{git && (
						<form
							class="changes-commit"
							onSubmit={(e) => {
								e.preventDefault();
								void commit();
							}}
						>
							<div class="muted" data-testid="changes-staged">
								{git.staged.length === 0 ? "Nothing staged." : `Staged: ${git.staged.map(visiblePath).join(", ")}`}
							</div>
							<textarea
								data-testid="changes-message"
								aria-label="Commit message"
								placeholder="Commit message"
								rows={2}
								value={message}
								onInput={(e) => setMessage(e.currentTarget.value)}
							/>
							<button type="submit" data-testid="changes-commit" disabled={busy || !message.trim()}>
								Commit
							</button>
						</form>
					)}
				</section>
			)}
		</div>
	);
}

function ChangedFile(props: {
	file: FileChangeView;
	git: boolean;
	staged: boolean;
	disabled: boolean;
	onRevert: () => void;
	onStage: () => void;
}) {
	const { file: f } = props;
	return (
		<li
			class="changes-file"
			data-testid="changes-file"
			data-path={f.path}
			data-status={f.status}
			data-reverted={f.reverted ? "true" : undefined}
			data-changed-since={f.changedSince ? "true" : undefined}
		>
			<details open>
				<summary>
					<span class={`changes-status changes-${f.status}`} title={f.status}>
						{STATUS_LETTER[f.status]}
					</span>
					<span class="changes-path">{visiblePath(f.path)}</span>
					<span class="diff-added-count">+{f.added}</span> <span class="diff-removed-count">−{f.removed}</span>
					{f.binary && <span class="badge">binary</span>}
					{f.reverted && (
						<span class="badge" data-testid="changes-reverted">
							reverted
						</span>
					)}
					{f.changedSince && (
						<span class="badge" title="The file is no longer what the agent left: a revert would refuse">
							changed since
						</span>
					)}
					{props.staged && <span class="badge">staged</span>}
				</summary>
				<div class="changes-file-actions">
					<button
						type="button"
						data-testid="changes-revert"
						disabled={props.disabled || !!f.reverted || !!f.special}
						onClick={props.onRevert}
					>
						Revert
					</button>
					{props.git && (
						<button type="button" data-testid="changes-stage" disabled={props.disabled} onClick={props.onStage}>
							Stage
						</button>
					)}
				</div>
				{f.binary ? (
					<p class="muted">Binary file {f.status}.</p>
				) : f.diff ? (
					<ChangesDiff path={f.path} diff={f.diff} />
				) : null}
				{f.note && <p class="muted">{f.note}</p>}
			</details>
		</li>
	);
}
