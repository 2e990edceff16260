/**
 * pi-ai's registry of API implementations. Its lookup left pi-ai's main entry in 1.x; it is in
 * `@earendil-works/pi-ai/compat`, which pi-ai calls a temporary entry point (to be deleted), so pier reads it here
 * only.
 */
import type { Api } from "@earendil-works/pi-ai";
import { getApiProvider } from "@earendil-works/pi-ai/compat";
import { Findings, loadForCheck, type Seam } from "./seam.js";

/** Whether pi-ai implements `api` (a built-in API such as `openai-completions`, or one registered since). */
export function piImplementsApi(api: string): boolean {
	return getApiProvider(api as Api) !== undefined;
}

const id = { name: "api-providers", file: "src/pi-seams/api-providers.ts" };

export const seam: Seam = {
	...id,
	members: ["@earendil-works/pi-ai/compat (temporary entry): getApiProvider(api)"],
	async check(roots) {
		const findings = new Findings(id);
		const compat = await loadForCheck<Record<string, unknown>>(findings, roots.ai, "dist/compat.js");
		findings.fn(compat, "getApiProvider", "pi-ai/compat export getApiProvider", 1);
		if (typeof compat?.getApiProvider === "function" && !compat.getApiProvider("openai-completions"))
			findings.add('getApiProvider("openai-completions") finds no built-in implementation');
		findings.done();
	},
};
