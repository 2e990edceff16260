/** pi's `--list-models` table (`cli/list-models.js`, not exported). */
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { moduleExports, piModule, type Seam } from "./seam.js";

const MODULE = "dist/cli/list-models.js";

interface ModelLister {
	listModels(runtime: ModelRuntime, search?: string, signal?: AbortSignal): Promise<void>;
}

/** Prints pi's table of every model with credentials, filtered by `search`. */
export async function listModels(
	runtime: ModelRuntime,
	search: string | undefined,
	signal: AbortSignal,
): Promise<void> {
	const lister = await piModule<ModelLister>(MODULE);
	await lister.listModels(runtime, search, signal);
}

const id = { name: "list-models", file: "src/pi-seams/list-models.ts" };

export const seam: Seam = {
	...id,
	members: ["cli/list-models.js (unexported): listModels(modelRuntime, search, signal)"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { listModels: 3 } }),
};
