/**
 * Native providers (`register_provider`) as the kit's `pi.registerProvider`: pier puts them in pi's model
 * registry (bridge/providers.ts). A request is rpi's one-shot v1 call: `{model, context, options}` in (context
 * = `{systemPrompt, messages, tools}`), the whole assistant message out, which pier checks.
 */
import type * as Kit from "../../../../kit/node/index.mjs";
import { callHandler } from "./handlers.js";
import type { PluginRegistry } from "./registry.js";

export function registerProviders(
	pi: Kit.ExtensionAPI,
	registry: PluginRegistry,
	options: {
		capabilities: readonly string[];
		id: string;
		log: (line: string) => void;
		/** Every invocation's context, as it arrives. */
		seen: (ctx: Kit.ExtensionContext) => unknown;
	},
): void {
	if (registry.providers.length === 0) return;
	if (!options.capabilities.includes("provider")) {
		throw new Error(
			`the plugin registers provider ${registry.providers.map((p) => `"${p.id}"`).join(", ")}, but pi-extension.json of ${options.id} does not declare the "provider" capability; add it to "capabilities"`,
		);
	}
	for (const provider of registry.providers) {
		pi.registerProvider(provider.id, {
			api: provider.apiStyle || provider.id,
			label: provider.id,
			...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}),
			complete: (request, ctx) => {
				options.seen(ctx);
				const input = {
					model: request.model?.id ?? null,
					context: {
						...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
						messages: request.messages,
						tools: request.tools,
					},
					options: request.options ?? {},
				};
				const { code, out } = callHandler(provider, JSON.stringify(input), undefined);
				if (code !== 0) throw new Error(`native provider ${provider.id} returned code ${code}${out ? `: ${out}` : ""}`);
				return JSON.parse(out) as Kit.AssistantMessage;
			},
		});
	}
}
