/**
 * A pi extension (in-process, pi's ExtensionAPI) that registers a `weather` tool
 * and a `/weather` command. The forecast is made up, deterministically, from the
 * city's name: the example must work offline.
 *
 *   npx pier run -e examples/extensions/weather.ts 'weather {"city":"Oslo"}'
 */
import { Type } from "typebox";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const SKIES = ["clear skies", "light rain", "overcast", "snow showers", "fog", "sunny spells"];

export function forecast(city: string): string {
	let hash = 0;
	for (const ch of city.toLowerCase()) hash = (hash * 31 + ch.codePointAt(0)!) >>> 0;
	const celsius = (hash % 35) - 5;
	return `${city}: ${celsius}°C, ${SKIES[hash % SKIES.length]}`;
}

export default function weatherExtension(pi: ExtensionAPI) {
	pi.registerTool({
		name: "weather",
		label: "Weather",
		description: "Current weather for a city (offline demo data).",
		parameters: Type.Object({ city: Type.String({ description: "City name" }) }),
		async execute(_toolCallId, params) {
			return { content: [{ type: "text", text: forecast(params.city) }], details: { city: params.city } };
		},
	});

	pi.registerCommand("weather", {
		description: "Show the weather for a city: /weather <city>",
		handler: async (args, ctx) => {
			const city = args.trim() || "London";
			ctx.ui.notify(forecast(city), "info");
		},
	});
}
