/**
 * `/model` and `/tree` without an argument: the chamber's model list and session tree in pi's selector, the
 * choice sent back through the chamber's API (the chamber's own `/model x` and `/tree id` take the argument form).
 */
import { ExtensionSelectorComponent } from "@earendil-works/pi-coding-agent";
import type { TUI } from "@earendil-works/pi-tui";
import type { ChamberClient } from "./client.js";
import type { ShowComponent } from "./dialog-view.js";

function choose(tui: TUI, title: string, options: string[], show: ShowComponent): Promise<number | undefined> {
	return new Promise((resolve) => {
		show(
			new ExtensionSelectorComponent(
				title,
				options,
				(option) => resolve(options.indexOf(option)),
				() => resolve(undefined),
				{ tui },
			),
		);
	});
}

export async function pickModel(
	client: ChamberClient,
	sessionId: string,
	tui: TUI,
	show: ShowComponent,
): Promise<void> {
	const models = await client.models(sessionId);
	if (models.length === 0) throw new Error("the chamber offers no model for this session");
	const index = await choose(
		tui,
		"Model",
		models.map((m) => `${m.ref}${m.name && m.name !== m.ref ? `  ${m.name}` : ""}`),
		show,
	);
	const model = index === undefined ? undefined : models[index];
	if (model) await client.setModel(sessionId, model.ref);
}

/** The tree as pi's `/tree` lists it: indented by depth, the active path marked; choosing one moves the leaf there. */
export async function pickTreeEntry(
	client: ChamberClient,
	sessionId: string,
	tui: TUI,
	show: ShowComponent,
): Promise<void> {
	const nodes = await client.tree(sessionId);
	if (nodes.length === 0) throw new Error("the session has no entries yet");
	const index = await choose(
		tui,
		"Session tree",
		nodes.map((n, i) => {
			const text = n.text.replace(/\s+/g, " ").slice(0, Math.max(20, tui.terminal.columns - 30 - 2 * n.depth));
			return `${i + 1}. ${"  ".repeat(Math.min(n.depth, 20))}${n.active ? "• " : "  "}${n.kind}: ${text}${n.label ? ` [${n.label}]` : ""}`;
		}),
		show,
	);
	const node = index === undefined ? undefined : nodes[index];
	if (node) await client.navigate(sessionId, node.id);
}
