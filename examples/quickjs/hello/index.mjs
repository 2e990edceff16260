// A QuickJS extension: no process, filesystem or network; only the pi API.
import { shout } from "./lib/shout.mjs";

export default function (pi) {
	pi.registerTool({
		name: "shout",
		label: "Shout",
		description: "Upper-cases text (runs in the QuickJS sandbox)",
		parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
		async execute(_id, params, _signal, onUpdate) {
			onUpdate({ content: [{ type: "text", text: "warming up…" }] });
			return { content: [{ type: "text", text: shout(params.text) }] };
		},
	});
	pi.registerCommand("hello", {
		description: "Greets from QuickJS",
		handler: async (args, ctx) => {
			await ctx.ui.notify(`Hello ${args || "world"} from QuickJS`, "info");
		},
	});
	pi.registerCommand("rename", {
		description: "Renames the session (a session action from the sandbox)",
		handler: async (args) => {
			await pi.setSessionName(args.trim() || "QuickJS session");
		},
	});
	pi.on("input", (event) =>
		event.text.startsWith("qjs:") ? { action: "transform", text: shout(event.text.slice(4).trim()) } : null,
	);
	pi.on("turn_end", async (_event, ctx) => {
		await ctx.ui.setStatus("quickjs-hello", `turns seen by ${pi.getSessionName() ?? "an unnamed session"}`);
	});
}
