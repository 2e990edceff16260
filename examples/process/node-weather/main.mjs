#!/usr/bin/env node
/**
 * examples/extensions/weather.ts as a process extension: the same deterministic
 * forecast, served over protocol v1 by kit/node. Also shows a command that
 * notifies and two hooks.
 */
import { runExtension } from "../../../kit/node/index.mjs";

const SKIES = ["clear skies", "light rain", "overcast", "snow showers", "fog", "sunny spells"];

/** weather.ts's forecast(), marked as coming from this process. */
function forecast(city) {
	let hash = 0;
	for (const ch of city.toLowerCase()) hash = (hash * 31 + ch.codePointAt(0)) >>> 0;
	return `${city}: ${(hash % 35) - 5}°C, ${SKIES[hash % SKIES.length]} (from a process extension)`;
}

const manifest = {
	id: "node-weather",
	name: "Node weather",
	version: "0.1.0",
	capabilities: ["tools", "commands", "event_hooks", "session_actions", "ui"],
	uiCapabilities: ["notify", "status"],
};

runExtension(manifest, (pi) => {
	pi.registerTool({
		name: "weather",
		label: "Weather",
		description: "Current weather for a city (offline demo data, from a process extension).",
		parameters: {
			type: "object",
			properties: { city: { type: "string", description: "City name" } },
			required: ["city"],
			examples: [{ city: "Oslo" }],
		},
		async execute(_toolCallId, params, _signal, onUpdate) {
			onUpdate({ content: [{ type: "text", text: `Looking up ${params.city}…` }] });
			return { content: [{ type: "text", text: forecast(params.city) }], details: { city: params.city } };
		},
	});

	pi.registerCommand("forecast", {
		description: "Show the weather for a city: /forecast <city>",
		handler: async (args, ctx) => {
			await ctx.ui.notify(forecast(args.trim() || "London"), "info");
		},
	});

	pi.on("tool_call", (event) => {
		if (event.toolName === "dangerous") return { block: true, reason: "blocked by node-weather" };
	});

	pi.on("input", (event) => {
		if (event.text.startsWith("shout:")) {
			return { action: "transform", text: event.text.slice("shout:".length).trim().toUpperCase() };
		}
	});
});
