/**
 * pi's `/reload` (AgentSession.reload) re-runs its resource loader's `reload()`. pier runs its own work around
 * it (protocol extensions restart first, trust is re-decided), so it replaces `reload` on the one loader it made.
 */
import type { ResourceLoader } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, type Seam } from "./seam.js";

/** From now on each `loader.reload()` runs `around`, which calls `reload` (pi's own) where it should run. */
export function aroundResourceReload(
	loader: ResourceLoader,
	around: (reload: () => Promise<void>) => Promise<void>,
): void {
	const original = loader.reload.bind(loader);
	loader.reload = (...args: Parameters<ResourceLoader["reload"]>) => around(() => original(...args));
}

const id = { name: "resource-reload", file: "src/pi-seams/resource-reload.ts" };

type PiIndex = typeof import("@earendil-works/pi-coding-agent");

export const seam: Seam = {
	...id,
	members: [
		"DefaultResourceLoader.reload(options): replaced on an instance",
		"core/agent-session.js reloads through this._resourceLoader.reload(",
	],
	async check(roots) {
		const findings = new Findings(id);
		const pi = await loadForCheck<PiIndex>(findings, roots.codingAgent, "dist/index.js");
		findings.fn(pi?.DefaultResourceLoader?.prototype, "reload", "DefaultResourceLoader.prototype.reload");
		findings.calls(roots.codingAgent, "dist/core/agent-session.js", "this._resourceLoader.reload(");
		findings.done();
	},
};
