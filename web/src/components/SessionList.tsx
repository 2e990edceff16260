/**
 * The sessions sidebar: create (with the project trust question), search (every message's text, on the daemon),
 * grouped by project; select, rename inline, archive, delete (asked first when the session runs or has a name)
 * with an Undo as long as the trash keeps the file, and a Trash view to restore from.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, describeError } from "../api.js";
import { basename, relativeTime } from "../format.js";
import type { SessionSummary, TrustView, WorktreeView } from "../types.js";
import { Icon, IconButton } from "./Icon.js";
import { useConfirm } from "./Confirm.js";
import { TrustCard } from "./TrustCard.js";
import { useToast } from "./Toasts.js";
import { TrashList } from "./TrashList.js";
import { useMessageSearch } from "../session-search.js";
import { visible } from "../visible.js";
import { BranchMark, NO_WORKTREE, WorktreeFields, worktreeCwd } from "./WorktreeBranch.js";

interface ListProps {
	sessions: SessionSummary[];
	loaded: boolean;
	selectedId?: string;
	onSelect: (id: string) => void;
	onChanged: (session: SessionSummary) => void;
	onDeleted: (id: string) => void;
}

/** What the search box matches: the name, the first message and the project directory. */
export function matches(s: SessionSummary, query: string): boolean {
	const q = query.trim().toLowerCase();
	return !q || [s.name, s.firstMessage, s.cwd].some((text) => text?.toLowerCase().includes(q));
}

/** One group per project directory, in the order of each project's newest session. */
export function byProject(sessions: readonly SessionSummary[]): [string, SessionSummary[]][] {
	const groups = new Map<string, SessionSummary[]>();
	for (const s of sessions) groups.set(s.cwd, [...(groups.get(s.cwd) ?? []), s]);
	return [...groups];
}

export function SessionList({ sessions, loaded, selectedId, onSelect, onChanged, onDeleted }: ListProps) {
	const [query, setQuery] = useState("");
	const [shelf, setShelf] = useState<"sessions" | "archived" | "trash">("sessions");
	const showArchived = shelf === "archived";
	const [archived, setArchived] = useState<SessionSummary[]>([]);
	const toast = useToast();
	useEffect(() => {
		if (!showArchived) return;
		api.listSessions({ archived: true }).then(
			(r) => setArchived(r.sessions),
			(err) => toast(describeError(err), "error"),
		);
	}, [showArchived, toast]);
	const source = showArchived ? archived : sessions.filter((s) => !s.archived);
	const inMessages = useMessageSearch(shelf === "trash" ? "" : query, showArchived);
	const shown = source.filter((s) => matches(s, query) || inMessages?.has(s.id));
	const changed = (s: SessionSummary) => {
		if (showArchived)
			setArchived((list) =>
				s.archived ? list.map((x) => (x.id === s.id ? s : x)) : list.filter((x) => x.id !== s.id),
			);
		onChanged(s);
	};
	return (
		<nav class="sidebar" aria-label="Sessions">
			<NewSession
				onCreated={(s) => {
					onChanged(s);
					onSelect(s.id);
				}}
			/>
			<div class="session-filters">
				<input
					type="search"
					data-testid="session-search"
					placeholder="Search sessions"
					aria-label="Search sessions"
					value={query}
					onInput={(e) => setQuery(e.currentTarget.value)}
				/>
				<button
					type="button"
					data-testid="show-archived"
					aria-pressed={showArchived}
					onClick={() => setShelf((on) => (on === "archived" ? "sessions" : "archived"))}
				>
					{showArchived ? "Back to sessions" : "Archived"}
				</button>
				<button
					type="button"
					data-testid="show-trash"
					aria-pressed={shelf === "trash"}
					onClick={() => setShelf((on) => (on === "trash" ? "sessions" : "trash"))}
				>
					{shelf === "trash" ? "Back to sessions" : "Trash"}
				</button>
			</div>
			{shelf === "trash" ? (
				<TrashList query={query} onRestored={onChanged} />
			) : (
				<ul class="session-list" data-testid="session-list">
					{loaded && shown.length === 0 && (
						<li class="muted empty">
							{query ? "No session matches." : showArchived ? "Nothing archived." : "No sessions yet."}
						</li>
					)}
					{byProject(shown).map(([cwd, group]) => [
						<li key={`group:${cwd}`} class="session-group" data-testid="session-group" title={cwd}>
							{visible(basename(cwd))}
						</li>,
						...group.map((s) => (
							<SessionItem
								key={s.id}
								session={s}
								selected={s.id === selectedId}
								onSelect={() => onSelect(s.id)}
								onChanged={changed}
								onDeleted={() => {
									if (showArchived) setArchived((list) => list.filter((x) => x.id !== s.id));
									onDeleted(s.id);
								}}
							/>
						)),
					])}
				</ul>
			)}
		</nav>
	);
}

function sessionLabel(s: SessionSummary): string {
	return visible(s.name || s.firstMessage || "New session");
}

interface ItemProps {
	session: SessionSummary;
	selected: boolean;
	onSelect: () => void;
	onChanged: (s: SessionSummary) => void;
	onDeleted: () => void;
}

function SessionItem({ session, selected, onSelect, onChanged, onDeleted }: ItemProps) {
	const [renaming, setRenaming] = useState(false);
	const [name, setName] = useState("");
	// Submit, Escape and blur can all end one edit; only the first may act.
	const editing = useRef(false);
	const field = useRef<HTMLInputElement>(null);
	// Focused with its text selected: typing replaces the name, arrows edit it.
	useEffect(() => {
		if (!renaming) return;
		field.current?.focus();
		field.current?.select();
	}, [renaming]);
	const toast = useToast();
	const confirm = useConfirm();

	const startRename = () => {
		editing.current = true;
		// Prefilled with what the list shows, so a rename edits rather than retypes.
		setName(session.name ?? (session.firstMessage ? sessionLabel(session).slice(0, 256) : ""));
		setRenaming(true);
	};
	const stopRename = () => {
		editing.current = false;
		setRenaming(false);
	};

	const rename = async () => {
		if (!editing.current) return;
		stopRename();
		const next = name.trim();
		if (!next || next === session.name) return;
		try {
			const r = await api.renameSession(session.id, next);
			onChanged(r.session);
		} catch (err) {
			toast(describeError(err), "error");
		}
	};

	// The file waits in the trash, so only a session that runs or that someone named is asked about first.
	const remove = async () => {
		const label = sessionLabel(session);
		if (session.live || session.name) {
			const why = session.live ? "It is running; deleting it stops it." : "It has a name.";
			const ok = await confirm(`Delete “${label}”? ${why} It waits in the Trash, where you can restore it.`, {
				confirmLabel: "Delete",
				danger: true,
			});
			if (!ok) return;
		}
		try {
			const r = await api.deleteSession(session.id);
			onDeleted();
			if (r.undoUntil === undefined) return toast(`Deleted “${label}”.`);
			toast(`Deleted “${label}”.`, "info", {
				label: "Undo",
				until: r.undoUntil,
				run: () =>
					void api.restoreSession(session.id).then(
						(restored) => onChanged(restored.session),
						(err) => toast(describeError(err), "error"),
					),
			});
		} catch (err) {
			toast(describeError(err), "error");
		}
	};

	const archive = async () => {
		try {
			const r = await api.archiveSession(session.id, !session.archived);
			onChanged(r.session);
			if (r.session.archived) toast(`Archived “${sessionLabel(session)}” (its file is kept).`);
		} catch (err) {
			toast(describeError(err), "error");
		}
	};

	return (
		<li
			class={`session-item${selected ? " selected" : ""}`}
			data-testid="session-item"
			data-session-id={session.id}
			aria-current={selected ? "page" : undefined}
		>
			{renaming ? (
				<form
					class="rename-form"
					onSubmit={(e) => {
						e.preventDefault();
						void rename();
					}}
				>
					<input
						ref={field}
						data-testid="rename-input"
						value={name}
						maxLength={256}
						aria-label="Session name"
						onInput={(e) => setName(e.currentTarget.value)}
						onBlur={() => void rename()}
						onKeyDown={(e) => {
							if (e.key === "Escape") {
								e.stopPropagation();
								stopRename();
							}
						}}
					/>
				</form>
			) : (
				<button type="button" class="session-open" onClick={onSelect}>
					<span class="session-name">{sessionLabel(session)}</span>
					{(session.waiting ?? 0) > 0 && (
						<span class="waiting-badge" data-testid="session-waiting">
							{session.waiting === 1 ? "waits for you" : `${session.waiting} questions wait`}
						</span>
					)}
					<span class="session-meta">
						{session.streaming ? (
							<span class="dot streaming" title="Working" />
						) : (
							session.live && <span class="dot live" title="Open" />
						)}
						<span title={session.cwd}>{basename(session.cwd)}</span>
						<span>· {relativeTime(session.modifiedAt)}</span>
						<BranchMark session={session} />
						{session.forkedFrom && <span data-testid="session-fork-mark">· fork</span>}
					</span>
				</button>
			)}
			{!renaming && (
				<span class="session-tools">
					<IconButton icon="edit" label="Rename" testId="rename-session" onClick={startRename} />
					<IconButton
						icon="archive"
						label={session.archived ? "Unarchive" : "Archive"}
						testId="archive-session"
						onClick={() => void archive()}
					/>
					<IconButton icon="trash" label="Delete" testId="delete-session" onClick={() => void remove()} />
				</span>
			)}
		</li>
	);
}

function NewSession({ onCreated }: { onCreated: (s: SessionSummary) => void }) {
	const [cwd, setCwd] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>();
	/** The daemon's question (it names what the project has and its parent folder), while it is open. */
	const [askTrust, setAskTrust] = useState<string | undefined>();
	/** The daemon's view of the project: the parent folder the button names, the MCP servers it would start. */
	const [trustView, setTrustView] = useState<TrustView | undefined>();
	/** Issue 33: "in a new worktree", and the worktree made for this session while its trust question is open. */
	const [worktree, setWorktree] = useState(NO_WORKTREE);
	const made = useRef<WorktreeView | undefined>(undefined);

	const create = async (approve?: boolean, trustParent?: boolean) => {
		setBusy(true);
		setError(undefined);
		try {
			const body: { cwd?: string; approve?: boolean; trustParent?: boolean } = {};
			// Empty means the daemon's own working directory, which the API expresses by leaving cwd out.
			if (cwd.trim()) body.cwd = cwd.trim();
			if (approve !== undefined) body.approve = approve;
			if (trustParent) body.trustParent = true;
			const inWorktree = await worktreeCwd(cwd.trim(), worktree, made);
			if (inWorktree) body.cwd = inWorktree;
			const r = await api.createSession(body);
			setAskTrust(undefined);
			// The next session starts from the default again; the path typed here is not a setting.
			setCwd("");
			setWorktree(NO_WORKTREE);
			made.current = undefined;
			onCreated(r.session);
		} catch (err) {
			if (err instanceof ApiError && err.code === "trust_required") {
				setAskTrust(err.message);
				setTrustView(await api.projectTrust(made.current?.cwd ?? cwd.trim()).catch(() => undefined));
			} else setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	return (
		<div class="new-session">
			<form
				class="new-session-form"
				onSubmit={(e) => {
					e.preventDefault();
					void create();
				}}
			>
				<input
					data-testid="new-session-cwd"
					value={cwd}
					placeholder="Project folder (optional)"
					title="The folder the session works in; empty: the folder pier serve was started in"
					aria-label="Project directory"
					onInput={(e) => {
						setCwd(e.currentTarget.value);
						setAskTrust(undefined);
						made.current = undefined;
					}}
				/>
				<WorktreeFields
					choice={worktree}
					onChange={(choice) => {
						setWorktree(choice);
						setAskTrust(undefined);
						made.current = undefined;
					}}
				/>
				<button type="submit" class="primary" data-testid="new-session" disabled={busy}>
					<Icon name="plus" /> New session
				</button>
			</form>
			{askTrust !== undefined && (
				<TrustCard
					question={askTrust}
					view={trustView}
					busy={busy}
					onAnswer={(trust, parent) => void create(trust, parent)}
				/>
			)}
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</div>
	);
}
