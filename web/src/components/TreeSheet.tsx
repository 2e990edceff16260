/**
 * `/tree`: the session's entries with connectors where branches fork off (as pi's tree selector draws them), the
 * current leaf marked and scrolled to, card and app entries compacted. A jump says where the branch left went.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { TreeNodeView } from "../types.js";
import { visible } from "../visible.js";
import { useToast } from "./Toasts.js";

/** Entries an extension left (cards, apps, its own types): one small line each, not a full row. */
const COMPACT = new Set(["card", "app", "custom"]);

/**
 * The connector in front of each node: for each level, `│` where a later sibling branch still comes, and at the
 * node's own level `├─`/`└─` where it opens a branch. One pass from the end, remembering per level whether a
 * sibling branch comes later.
 */
export function connectors(nodes: readonly TreeNodeView[]): string[] {
	const out: string[] = new Array(nodes.length);
	const later: boolean[] = [];
	for (let i = nodes.length - 1; i >= 0; i--) {
		const { depth, start } = nodes[i]!;
		let prefix = "";
		for (let level = 1; level <= depth; level++) {
			const more = later[level] === true;
			if (level < depth) prefix += more ? "│ " : "  ";
			else prefix += start ? (more ? "├─" : "└─") : more ? "│ " : "  ";
		}
		out[i] = prefix;
		// Levels below this node belong to its own descendants: nodes before it do not continue them.
		later.length = depth + 1;
		if (start && depth > 0) later[depth] = true;
	}
	return out;
}

/** The current leaf: the last entry on the active path (depth-first order lists a path root first). */
export function leafOf(nodes: readonly TreeNodeView[]): string | undefined {
	for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i]!.active) return nodes[i]!.id;
	return undefined;
}

export function TreeList({
	nodes,
	busy,
	onJump,
}: {
	nodes: TreeNodeView[];
	busy: boolean;
	onJump: (node: TreeNodeView) => void;
}) {
	const prefixes = useMemo(() => connectors(nodes), [nodes]);
	const leaf = useMemo(() => leafOf(nodes), [nodes]);
	const list = useRef<HTMLUListElement>(null);
	// Opens at the current leaf, as pi's selector does, not at the session's first entry.
	useLayoutEffect(() => {
		const at = list.current?.querySelector<HTMLElement>('[data-leaf="true"]');
		if (!at || !list.current) return;
		list.current.scrollTop = at.offsetTop - list.current.clientHeight / 2;
		at.focus({ preventScroll: true });
	}, [leaf]);
	return (
		<ul class="tree-list" aria-label="Entries" ref={list} data-testid="tree-list">
			{nodes.map((n, i) => {
				const isLeaf = n.id === leaf;
				const compact = COMPACT.has(n.kind);
				return (
					<li key={n.id} class={compact ? "tree-compact" : undefined}>
						<button
							type="button"
							class={`tree-node tree-${n.kind}${n.active ? " tree-active" : ""}${isLeaf ? " tree-leaf" : ""}`}
							data-testid="tree-node"
							data-entry-id={n.id}
							data-kind={n.kind}
							data-active={n.active ? "true" : "false"}
							data-leaf={isLeaf ? "true" : undefined}
							data-start={n.start ? "true" : undefined}
							aria-current={isLeaf ? "step" : undefined}
							disabled={busy}
							title={
								n.kind === "user"
									? "Go back to before this message (its text returns to the box)"
									: "Continue from here"
							}
							onClick={() => onJump(n)}
						>
							<span class="tree-rail" aria-hidden="true" data-testid="tree-rail">
								{prefixes[i]}
								<span class="tree-dot">{isLeaf ? "●" : n.active ? "•" : "·"}</span>
							</span>
							{!compact && <span class="tree-kind">{n.kind.replace("_", " ")}</span>}
							<span class="tree-text">{visible(n.text || "—")}</span>
							{n.label && <span class="tree-label">{visible(n.label)}</span>}
							{isLeaf && <span class="tree-here">you are here</span>}
						</button>
					</li>
				);
			})}
		</ul>
	);
}

/** Where the branch left behind now is, in words: its last entry's text. */
function leftBehind(nodes: readonly TreeNodeView[], from: string | undefined, to: TreeNodeView): string | undefined {
	const old = nodes.find((n) => n.id === from);
	if (!old || old.id === to.id) return undefined;
	const text = old.text ? `“${old.text.slice(0, 60)}${old.text.length > 60 ? "…" : ""}”` : `the ${old.kind} entry`;
	return `The branch you left ends at ${text}; it is kept, and /tree can bring you back to it.`;
}

export function TreeSheetBody({
	sessionId,
	onClose,
	onError,
}: {
	sessionId: string;
	onClose: () => void;
	onError: (message: string) => void;
}) {
	const [nodes, setNodes] = useState<TreeNodeView[] | undefined>();
	const [summarize, setSummarize] = useState(false);
	const [busy, setBusy] = useState(false);
	const toast = useToast();
	useEffect(() => {
		api.tree(sessionId).then(
			(r) => setNodes(r.nodes),
			(err) => onError(`Could not read the tree: ${describeError(err)}`),
		);
	}, [sessionId, onError]);
	const jump = async (to: TreeNodeView) => {
		setBusy(true);
		const said = nodes ? leftBehind(nodes, leafOf(nodes), to) : undefined;
		try {
			await api.navigateTree(sessionId, to.id, summarize);
			onClose();
			if (said) toast(summarize ? `${said} Its summary is in the transcript.` : said);
		} catch (err) {
			onError(describeError(err));
			setBusy(false);
		}
	};
	return (
		<>
			<label class="habit-option">
				<input type="checkbox" checked={summarize} onChange={(e) => setSummarize(e.currentTarget.checked)} /> Summarize
				the branch I leave
			</label>
			{!nodes ? (
				<p class="muted">Loading…</p>
			) : nodes.length === 0 ? (
				<p class="muted">Nothing in this session yet.</p>
			) : (
				<TreeList nodes={nodes} busy={busy} onJump={(n) => void jump(n)} />
			)}
		</>
	);
}
