/**
 * The pickers and sheets behind the chamber's page commands, as pi's terminal has them: `/tree` (the session
 * tree; jump to an entry, optionally summarizing the branch left), `/fork` (a user message to fork before),
 * `/resume` (another session of this project), `/session` (info) and `/hotkeys`.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { formatTokens, relativeTime } from "../format.js";
import type { SessionSummary, SessionView } from "../types.js";
import { lazyView } from "../lazy-view.js";
import { visible } from "../visible.js";

// /tree is opened now and then: its code is fetched the first time.
const TreeSheetBody = lazyView(
	() => import("./TreeSheet.js"),
	(m) => m.TreeSheetBody,
	"the session tree",
);

export type HabitDialog =
	| { kind: "tree" }
	| { kind: "fork"; entryId?: string }
	| { kind: "resume" }
	| { kind: "session" }
	| { kind: "hotkeys" };

interface Props {
	dialog: HabitDialog;
	view: SessionView;
	onClose: () => void;
	onOpenSession: (id: string) => void;
	onError: (message: string) => void;
}

function Sheet({
	title,
	onClose,
	children,
	testId,
}: {
	title: string;
	onClose: () => void;
	testId: string;
	children: preact.ComponentChildren;
}) {
	const ref = useRef<HTMLDivElement>(null);
	useEffect(() => {
		ref.current?.querySelector<HTMLElement>("[data-autofocus], button, input")?.focus();
	}, []);
	return (
		// biome-ignore lint/a11y/noStaticElementInteractions: a click beside the sheet closes it; Escape and Close do too
		<div
			class="modal-backdrop"
			onClick={(e) => e.target === e.currentTarget && onClose()}
			onKeyDown={(e) => {
				if (e.key === "Escape") {
					e.preventDefault();
					onClose();
				}
			}}
		>
			<div ref={ref} class="modal habit-sheet" role="dialog" aria-modal="true" aria-label={title} data-testid={testId}>
				<div class="habit-sheet-head">
					<h2>{title}</h2>
					<button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
						×
					</button>
				</div>
				{children}
			</div>
		</div>
	);
}

export function HabitDialogs(props: Props) {
	const { dialog, onClose } = props;
	switch (dialog.kind) {
		case "tree":
			return <TreeSheet {...props} />;
		case "fork":
			return <ForkSheet {...props} />;
		case "resume":
			return <ResumeSheet {...props} />;
		case "session":
			return <InfoSheet {...props} />;
		case "hotkeys":
			return (
				<Sheet title="Keyboard shortcuts" testId="hotkeys" onClose={onClose}>
					<dl class="hotkeys">
						{HOTKEYS.map(([key, what]) => (
							<div key={key}>
								<dt>
									<kbd>{key}</kbd>
								</dt>
								<dd>{what}</dd>
							</div>
						))}
					</dl>
				</Sheet>
			);
	}
}

const HOTKEYS: [string, string][] = [
	["Enter", "Send (while the agent runs: steer it)"],
	["Shift+Enter", "New line"],
	["Alt+Enter", "Queue a follow-up while the agent runs"],
	["Escape", "Abort the agent; close a list"],
	["↑ / ↓", "Walk the prompt history (on the first / last line)"],
	["Tab", "Complete a /command or an @file"],
	["/", "Commands: the chamber's, extensions', prompt templates and skills"],
	["@", "Attach a project file"],
	["!cmd / !!cmd", "Run bash (!! keeps the output out of the model's context)"],
	["Ctrl+K", "Focus the message box"],
	["Ctrl+V / drop", "Attach an image"],
];

function TreeSheet({ view, onClose, onError }: Props) {
	return (
		<Sheet title="Session tree" testId="tree" onClose={onClose}>
			<TreeSheetBody sessionId={view.session.id} onClose={onClose} onError={onError} />
		</Sheet>
	);
}

function ForkSheet({ dialog, view, onClose, onError, onOpenSession }: Props) {
	const users = view.rows.filter((r) => r.kind === "user");
	const fork = async (entryId: string) => {
		try {
			// The page follows the fork through `session.replaced` too; opening the answer's id is the direct way.
			const { id } = await api.fork(view.session.id, entryId);
			onClose();
			onOpenSession(id);
		} catch (err) {
			onError(describeError(err));
		}
	};
	const preset = dialog.kind === "fork" ? dialog.entryId : undefined;
	useEffect(() => {
		if (preset) void fork(preset);
	}, [preset]);
	if (preset) return null;
	return (
		<Sheet title="Fork from a message" testId="fork" onClose={onClose}>
			{users.length === 0 ? (
				<p class="muted">No messages to fork from yet.</p>
			) : (
				<OptionList
					testId="fork-option"
					options={users.map((r) => ({
						id: r.id,
						text: r.kind === "user" ? r.text.slice(0, 200) : "",
						pick: () => void fork(r.id),
					}))}
				/>
			)}
		</Sheet>
	);
}

/** A list of choices in a sheet; each option's id is on its button (`data-id`). */
function OptionList({
	testId,
	options,
}: {
	testId: string;
	options: { id: string; text: string; label?: string; pick: () => void }[];
}) {
	return (
		<ul class="tree-list">
			{options.map((o) => (
				<li key={o.id}>
					<button type="button" class="tree-node" data-testid={testId} data-id={o.id} onClick={o.pick}>
						<span class="tree-text">{visible(o.text)}</span>
						{o.label && <span class="tree-label">{visible(o.label)}</span>}
					</button>
				</li>
			))}
		</ul>
	);
}

function ResumeSheet({ view, onClose, onError, onOpenSession }: Props) {
	const [sessions, setSessions] = useState<SessionSummary[] | undefined>();
	useEffect(() => {
		api.listSessions().then(
			(r) => setSessions(r.sessions.filter((s) => s.cwd === view.session.cwd && s.id !== view.session.id)),
			(err) => onError(describeError(err)),
		);
	}, [view.session.cwd, view.session.id, onError]);
	return (
		<Sheet title="Resume a session" testId="resume" onClose={onClose}>
			{!sessions ? (
				<p class="muted">Loading…</p>
			) : sessions.length === 0 ? (
				<p class="muted">No other sessions in this project.</p>
			) : (
				<OptionList
					testId="resume-option"
					options={sessions.map((s) => ({
						id: s.id,
						text: s.name || s.firstMessage || "New session",
						label: `${s.messageCount} msgs · ${relativeTime(s.modifiedAt)}`,
						pick: () => {
							onClose();
							onOpenSession(s.id);
						},
					}))}
				/>
			)}
		</Sheet>
	);
}

function InfoSheet({ view, onClose }: Props) {
	const { session, usage } = view;
	const count = (kind: string) => view.rows.filter((r) => r.kind === kind).length;
	const lines: [string, string][] = [
		["Name", session.name ?? "—"],
		["Id", session.id],
		["Project", session.cwd],
		["Model", view.model ?? "—"],
		["Messages", `${count("user")} user, ${count("assistant")} assistant, ${count("tool_result")} tool results`],
		[
			"Tokens",
			`${usage.input} in, ${usage.output} out, ${usage.cacheRead} cache read, ${usage.cacheWrite} cache write`,
		],
		["Cost", `$${usage.cost.toFixed(4)}`],
		[
			"Context",
			usage.contextTokens === null
				? `? of ${formatTokens(usage.contextWindow)}`
				: `${usage.contextTokens} of ${usage.contextWindow || "?"} tokens`,
		],
	];
	return (
		<Sheet title="Session" testId="session-info" onClose={onClose}>
			<dl class="session-info">
				{lines.map(([k, v]) => (
					<div key={k}>
						<dt>{k}</dt>
						<dd>{visible(v)}</dd>
					</div>
				))}
			</dl>
		</Sheet>
	);
}
