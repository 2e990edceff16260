/**
 * pi 1.6's ExtensionAPI methods protocol v1 cannot carry. The `pi` object still has each one, as pi's does: a
 * call throws naming the method and why, so an extension written for pi fails where it asks, never on
 * `undefined is not a function`.
 */

const RENDERERS = "renderers run in pi's process (issue 'Extension UI in the browser')";

/** Method → why it cannot cross. */
export const UNAVAILABLE_METHODS = Object.freeze({
	registerEntryRenderer: RENDERERS,
	registerToolRenderer: RENDERERS,
	registerMarkdownTransformer: `${RENDERERS}; a transformer is called while pi draws markdown`,
	registerVirtualModel: "pi calls a virtual model's route function in its own process for each request",
	unregisterVirtualModel: "no extension outside pi's process can register a virtual model",
	registerMcpServer: "protocol v1 has no MCP server registration (issue 'MCP in pier')",
	unregisterMcpServer: "protocol v1 has no MCP server registration (issue 'MCP in pier')",
	getMcpServers: "protocol v1 has no MCP request; hook mcp_servers_change to hear of registered servers",
	getSettings: "protocol v1 has no settings request",
	exec: "protocol v1 has no exec action; a process extension runs commands itself (node:child_process)",
});

const RUNTIME_NOUNS = { node: "process extensions", quickjs: "QuickJS extensions" };

/** The throwing methods for a guest of `runtime` ("node", "quickjs", …). */
export function unavailableMethods(runtime) {
	const who = RUNTIME_NOUNS[runtime] ?? `${runtime} extensions`;
	const methods = {};
	for (const [name, why] of Object.entries(UNAVAILABLE_METHODS)) {
		methods[name] = () => {
			const error = new Error(`pi.${name} is not available to ${who} in pier: ${why}`);
			error.code = "unavailable";
			throw error;
		};
	}
	return methods;
}
