/**
 * pi-ai's registry of API implementations. Its lookup left pi-ai's main entry in 1.x; it is in
 * `@earendil-works/pi-ai/compat`, which pi-ai calls a temporary entry point (to be deleted), so pier reads it here
 * only.
 */
import type { Api } from "@earendil-works/pi-ai";
import type { SimpleStreamOptions } from "@earendil-works/pi-ai";
import { getApiProvider, registerApiProvider } from "@earendil-works/pi-ai/compat";
import { Findings, loadForCheck, type Seam } from "./seam.js";

/** Whether pi-ai implements `api` (a built-in API such as `openai-completions`, or one registered since). */
export function piImplementsApi(api: string): boolean {
	return getApiProvider(api as Api) !== undefined;
}

type StreamSimple = NonNullable<Parameters<typeof registerApiProvider<Api, SimpleStreamOptions>>[0]["streamSimple"]>;

/**
 * Makes `api` an API any models.json provider may name (pi resolves a models.json provider's API in this registry).
 * pi resets the registry on a session's /reload, so callers register again where a session starts.
 */
export function offerApi(api: string, streamSimple: StreamSimple): void {
	if (getApiProvider(api as Api)) return;
	registerApiProvider({ api: api as Api, stream: streamSimple, streamSimple }, `pier:${api}`);
}

const id = { name: "api-providers", file: "src/pi-seams/api-providers.ts" };

export const seam: Seam = {
	...id,
	members: [
		"@earendil-works/pi-ai/compat (temporary entry): getApiProvider(api)",
		"@earendil-works/pi-ai/compat: registerApiProvider({api, stream, streamSimple}, sourceId)",
	],
	async check(roots) {
		const findings = new Findings(id);
		const compat = await loadForCheck<Record<string, unknown>>(findings, roots.ai, "dist/compat.js");
		findings.fn(compat, "getApiProvider", "pi-ai/compat export getApiProvider", 1);
		findings.fn(compat, "registerApiProvider", "pi-ai/compat export registerApiProvider", 2);
		if (typeof compat?.getApiProvider === "function" && !compat.getApiProvider("openai-completions"))
			findings.add('getApiProvider("openai-completions") finds no built-in implementation');
		findings.done();
	},
};
