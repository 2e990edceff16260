/**
 * pi's MCP extension (`extensions/mcp/index.js`, not exported) built with a `loadConfig` that also tells pier what
 * was wrong in the `mcp.json` files. pi reports config errors (an invalid entry, a name that clashes, `sse`)
 * through `ctx.ui.notify`, which headless runs have no UI for, so `pier run` would drop them silently. The config
 * is loaded exactly as pi's own default does (`config.js`'s `loadMcpConfig` with pi's agent directory, the
 * session's cwd and the session's trust decision); pier only hears the errors.
 */
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, piModule, type Seam } from "./seam.js";

const INDEX = "dist/extensions/mcp/index.js";
const CONFIG = "dist/extensions/mcp/config.js";

interface LoadedConfig {
	errors: string[];
}

interface McpIndex {
	createMcpExtension(options?: { loadConfig?: (ctx: ExtensionContext) => LoadedConfig }): (pi: ExtensionAPI) => void;
}

interface McpConfig {
	loadMcpConfig(options: { agentDir: string; cwd: string; projectTrusted: boolean }): LoadedConfig;
}

/** pi's MCP extension factory; `onConfigErrors` hears each load's errors (`<file>: server "<name>": …`). */
export async function piMcpExtension(onConfigErrors: (errors: readonly string[]) => void) {
	const [{ createMcpExtension }, { loadMcpConfig }] = await Promise.all([
		piModule<McpIndex>(INDEX),
		piModule<McpConfig>(CONFIG),
	]);
	return createMcpExtension({
		loadConfig: (ctx) => {
			const loaded = loadMcpConfig({ agentDir: getAgentDir(), cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() });
			if (loaded.errors.length > 0) onConfigErrors(loaded.errors);
			return loaded;
		},
	});
}

const id = { name: "mcp-extension", file: "src/pi-seams/mcp-extension.ts" };

export const seam: Seam = {
	...id,
	members: [
		"extensions/mcp/index.js (unexported): createMcpExtension({ loadConfig }), whose default loadConfig is the call below",
		"extensions/mcp/config.js (unexported): loadMcpConfig({ agentDir, cwd, projectTrusted }) → { errors, … }",
	],
	async check(roots) {
		const findings = new Findings(id);
		const index = await loadForCheck<Partial<McpIndex>>(findings, roots.codingAgent, INDEX);
		findings.fn(index, "createMcpExtension", `${INDEX} export createMcpExtension`);
		const config = await loadForCheck<Partial<McpConfig>>(findings, roots.codingAgent, CONFIG);
		findings.fn(config, "loadMcpConfig", `${CONFIG} export loadMcpConfig`, 1);
		// The option still replaces the default, and the default is still the load pier repeats.
		findings.calls(roots.codingAgent, INDEX, "(options.loadConfig ?? defaultLoadConfig)(ctx)");
		findings.calls(
			roots.codingAgent,
			INDEX,
			"loadMcpConfig({ agentDir: getAgentDir(), cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() })",
		);
		findings.done();
	},
};
