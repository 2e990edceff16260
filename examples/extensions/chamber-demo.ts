/**
 * A pi extension that lights up in the chamber (PiChamber's GUI protocol) and still works in the plain pi
 * CLI: cards, a live panel, a form, dialogs, an app surface and a status, all from pi's ExtensionAPI.
 *
 *   npx pier serve        (loads this example), then in a session try:
 *   /demo-card   /demo-form   /demo-confirm   /demo-app
 *   spawn_subagent {"name":"research","task":"read the docs"}
 */
import { Type } from "typebox";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";

const UI = { protocol: "pichamber-extension-ui", version: 1 } as const;

/** The chamber's own check, kept local as PiChamber recommends: no dependency on the host. */
function inChamber(ctx: ExtensionContext): boolean {
	// pi's own context has no mode; protocol extensions can also check ctx.mode === "rpc" && ctx.hasUI.
	if (!ctx.hasUI) return false;
	const marker = (globalThis as Record<string, unknown>).__PICHAMBER__ as { version?: number } | undefined;
	if (marker?.version) return true;
	return process.env.PICHAMBER === "1";
}

type FormUi = { form?: (title: string, fields: unknown[]) => Promise<Record<string, string> | undefined> };

export default function chamberDemo(pi: ExtensionAPI) {
	const agents = new Map<string, { status: string; task: string }>();

	const renderAgents = () =>
		pi.appendEntry("pichamber.ui", {
			...UI,
			id: "subagents",
			title: "Sub-agents",
			component: "table",
			props: { columns: ["Agent", "Status", "Task"], rows: [...agents].map(([n, a]) => [n, a.status, a.task]) },
			actions: [
				{ label: "Finish all", command: "subagents-finish", variant: "primary", icon: "check" },
				{ label: "Clear", command: "subagents-clear", variant: "danger", confirm: "Remove every sub-agent?" },
			],
		});

	pi.on("session_start", async (_event, ctx) => {
		if (inChamber(ctx)) ctx.ui.setStatus("chamber-demo", "chamber demo ready");
	});

	pi.registerTool({
		name: "spawn_subagent",
		label: "Spawn sub-agent",
		description: "Start a tracked sub-agent (a demo: it only appears in the live panel).",
		parameters: Type.Object({ name: Type.String(), task: Type.String() }),
		async execute(_id, params) {
			agents.set(params.name, { status: "running", task: params.task });
			renderAgents();
			return { content: [{ type: "text", text: `Spawned ${params.name}` }], details: {} };
		},
	});

	pi.registerCommand("subagents-finish", {
		description: "Mark every sub-agent done",
		handler: async (_args, ctx) => {
			for (const agent of agents.values()) agent.status = "done";
			renderAgents();
			ctx.ui.notify("All sub-agents finished", "info");
		},
	});

	pi.registerCommand("subagents-clear", {
		description: "Remove the sub-agent panel",
		handler: async () => {
			agents.clear();
			pi.appendEntry("pichamber.ui", { ...UI, id: "subagents", removed: true });
		},
	});

	pi.registerCommand("demo-card", {
		description: "Show a card with actions",
		handler: async () => {
			pi.appendEntry("pichamber.ui", {
				...UI,
				title: "Index",
				component: "progress",
				props: { label: "Files indexed", value: 40, max: 200 },
				actions: [
					{ label: "Focus", command: "demo-focus", args: "src", icon: "search" },
					{ label: "Focus on…", command: "demo-focus", promptForArgs: { label: "Directory", placeholder: "src/" } },
				],
			});
		},
	});

	pi.registerCommand("demo-focus", {
		description: "Focus on a directory",
		handler: async (args, ctx) => {
			ctx.ui.notify(`Focusing on ${args || "."}`, "info");
			pi.appendEntry("pichamber.ui", {
				...UI,
				component: "markdown",
				props: { body: `**Focused** on \`${args || "."}\`` },
			});
		},
	});

	pi.registerCommand("demo-form", {
		description: "Ask for a sub-agent through a form",
		handler: async (_args, ctx) => {
			const form = (ctx.ui as unknown as FormUi).form;
			if (!form) {
				ctx.ui.notify("forms need the chamber", "warning");
				return;
			}
			const values = await form("Spawn agent", [
				{ id: "name", label: "Name", type: "text", required: true },
				{ id: "task", label: "Task", type: "textarea" },
				{ id: "priority", label: "Priority", type: "select", options: ["low", "high"] },
				{ id: "dryRun", label: "Dry run", type: "checkbox", initial: "false" },
			]);
			if (!values) return;
			agents.set(values.name ?? "agent", {
				status: values.dryRun === "true" ? "dry run" : "running",
				task: values.task ?? "",
			});
			renderAgents();
		},
	});

	pi.registerCommand("demo-confirm", {
		description: "Ask a yes/no question",
		handler: async (_args, ctx) => {
			const yes = await ctx.ui.confirm("Deploy?", "Ship the demo to production?", { timeout: 60_000 });
			ctx.ui.notify(yes ? "Deploying" : "Not deploying", yes ? "info" : "warning");
		},
	});

	pi.registerCommand("demo-app", {
		description: "Open a small app surface",
		handler: async () => {
			pi.appendEntry("pichamber.app", {
				...UI,
				appId: "counter",
				title: "Counter",
				html: `<p>Sub-agents: ${agents.size}</p><button data-pichamber-command="demo-focus" data-pichamber-args="app">Focus from the app</button>`,
			});
		},
	});
}
