/**
 * Embedding pier: a real pi agent session with a tool and an extension of the
 * embedder's own, answered by whatever model is configured (pier/demo offline).
 *
 *   npm run build && node dist/examples/embed.js 'dice {"sides":6}'
 */
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { createPierSession, modelRefOf } from "pier";

// A plain pi-agent-core tool: deterministic so the example's output can be checked.
const dice: AgentTool = {
	name: "dice",
	label: "Dice",
	description: "Roll a die with the given number of sides",
	parameters: Type.Object({ sides: Type.Integer({ minimum: 2 }) }),
	async execute(_id, params) {
		const { sides } = params as { sides: number };
		return { content: [{ type: "text", text: `rolled ${sides} on a d${sides}` }], details: { sides } };
	},
};

// An in-process pi extension handed over as code: it counts turns.
let turns = 0;
const turnCounter: ExtensionFactory = (pi) => {
	pi.on("turn_end", () => {
		turns++;
	});
};

const prompt = process.argv[2] ?? 'dice {"sides":6}';
const pier = await createPierSession({
	tools: [dice],
	extensionFactories: [turnCounter],
	session: { kind: "memory" },
});
pier.session.subscribe((event) => {
	if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
		process.stdout.write(event.assistantMessageEvent.delta);
	}
});
await pier.session.prompt(prompt);
process.stdout.write(`\n[model ${modelRefOf(pier.runtime)}, ${turns} turns]\n`);
await pier.dispose();
