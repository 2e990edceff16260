/**
 * Native providers (`register_provider`) handed to the kit's `registerProvider`, which the bridge helper
 * adds (kit/node, bridge/factory.ts). Until the kit has it they are listed on stderr and not registered.
 * A request is rpi's one-shot v1 call: `{model, context, options}` in, the whole assistant message out.
 */
import type * as Kit from "../../../../kit/node/index.mjs";
import { callHandler } from "./handlers.js";
import type { PluginRegistry } from "./registry.js";

interface ProviderKit {
	registerProvider?: (provider: {
		id: string;
		label?: string;
		api: string;
		baseUrl?: string;
		complete(request: { model: unknown; context: unknown; options?: unknown }): Promise<unknown>;
	}) => void;
}

export function registerProviders(
	pi: Kit.ExtensionAPI,
	registry: PluginRegistry,
	options: { capabilities: readonly string[]; id: string; log: (line: string) => void },
): void {
	if (registry.providers.length === 0) return;
	const kit = pi as Kit.ExtensionAPI & ProviderKit;
	if (typeof kit.registerProvider !== "function" || !options.capabilities.includes("provider")) {
		options.log(
			`providers ${registry.providers.map((p) => `"${p.id}"`).join(", ")} not registered: ${
				typeof kit.registerProvider !== "function"
					? "this kit has no registerProvider"
					: `pi-extension.json of ${options.id} does not declare the "provider" capability`
			}`,
		);
		return;
	}
	for (const provider of registry.providers) {
		kit.registerProvider({
			id: provider.id,
			label: provider.id,
			api: provider.apiStyle || "native",
			...(provider.baseUrl ? { baseUrl: provider.baseUrl } : {}),
			complete: async (request) => {
				const { code, out } = callHandler(provider, JSON.stringify(request), undefined);
				if (code !== 0) throw new Error(`native provider ${provider.id} returned code ${code}${out ? `: ${out}` : ""}`);
				return JSON.parse(out);
			},
		});
	}
}
