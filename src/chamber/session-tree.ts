/**
 * `/tree`: the session's entries as pi's tree selector lists them (depth first, children in file order), each
 * with the text a person recognises it by, and whether it is on the path to the current leaf.
 */
import type { SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";
import { rowOf } from "./transcript.js";
import type { TreeNodeView } from "./wire.js";

/** Entries listed at most; pi's selector scrolls, the page shows the newest part of a huge tree. */
export const TREE_LIMIT = 5_000;
const TEXT = 200;

interface Node {
	entry: SessionEntry;
	children: Node[];
	label?: string;
}

/** undefined for bookkeeping (model and thinking changes, labels, names), which pi's selector does not list either. */
function textOf(entry: SessionEntry): { kind: string; text: string } | undefined {
	// pi's system prompt and tools: no transcript row, but pi's selector lists the entry ("[system]").
	if (entry.type === "message" && (entry.message as { role?: string }).role === "system")
		return { kind: "system", text: "" };
	const row = rowOf(entry);
	if (!row) return undefined;
	switch (row.kind) {
		case "user":
		case "assistant":
			return {
				kind: row.kind,
				text: row.text || (row.kind === "assistant" ? row.toolCalls.map((c) => c.name).join(", ") : ""),
			};
		case "tool_result":
			return { kind: row.kind, text: `${row.toolName}: ${row.text}` };
		case "bash":
			return { kind: row.kind, text: `!${row.excludeFromContext ? "!" : ""}${row.command}` };
		case "compaction":
		case "branch_summary":
			return { kind: row.kind, text: row.summary };
		case "custom":
			return { kind: row.kind, text: row.customType };
		case "error":
			return { kind: row.kind, text: row.message };
		case "card":
			return { kind: row.kind, text: row.card.title ?? row.card.id ?? "card" };
		case "app":
			return { kind: row.kind, text: row.title ?? row.appId };
	}
}

export function treeOf(manager: Pick<SessionManager, "getTree" | "getBranch">): TreeNodeView[] {
	const active = new Set(manager.getBranch().map((e) => e.id));
	const out: TreeNodeView[] = [];
	// Iterative: a long session is a deep chain (each entry the child of the one before).
	// start: the node opens a branch (its parent has other children); an unlisted entry passes it to its child.
	const stack: { node: Node; depth: number; start: boolean }[] = (manager.getTree() as Node[])
		.map((node) => ({ node, depth: 0, start: false }))
		.reverse();
	while (stack.length > 0) {
		const { node, depth, start } = stack.pop() as { node: Node; depth: number; start: boolean };
		const shown = textOf(node.entry);
		const branches = node.children.length > 1;
		for (const child of [...node.children].reverse()) {
			stack.push({ node: child, depth: branches ? depth + 1 : depth, start: branches || (!shown && start) });
		}
		if (!shown) continue;
		const { kind, text } = shown;
		out.push({
			id: node.entry.id,
			parentId: node.entry.parentId,
			// A chain without siblings stays at its parent's depth, as in pi's selector.
			depth,
			kind,
			text: text.replace(/\s+/g, " ").trim().slice(0, TEXT),
			...(node.label ? { label: node.label.slice(0, TEXT) } : {}),
			active: active.has(node.entry.id),
			...(start ? { start: true } : {}),
			timestamp: node.entry.timestamp,
		});
	}
	return out.length > TREE_LIMIT ? out.slice(-TREE_LIMIT) : out;
}
