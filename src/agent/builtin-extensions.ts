/**
 * pi's built-in extensions for one pier session (pi-seams/builtin-extensions.ts), with its MCP extension built by
 * pier (pi-seams/mcp-extension.ts): the same extension, telling `onConfigErrors` of `mcp.json` errors and ending each
 * stdio server's whole process group when its session ends, and watched by `McpControl`, through which the chamber
 * reads and steers it (mcp/control.ts).
 */
import { type BuiltinExtension, piBuiltinExtensions } from "../pi-seams/builtin-extensions.js";
import { piMcpExtension } from "../pi-seams/mcp-extension.js";
import { McpControl } from "./mcp/control.js";
import { mcpProcessGroups } from "./mcp-process-groups.js";

export async function sessionBuiltins(
	onConfigErrors: ((errors: readonly string[]) => void) | undefined,
): Promise<{ builtins: BuiltinExtension[]; mcp: McpControl }> {
	const mcp = new McpControl();
	const factory = await piMcpExtension({
		...(onConfigErrors ? { onConfigErrors } : {}),
		groups: mcpProcessGroups,
		onRemoteEntry: (entry) => mcp.noteRemote(entry),
		onConnection: (connection) => mcp.apps.note(connection),
	});
	const builtins = (await piBuiltinExtensions()).map((entry) =>
		entry.name === "mcp" ? { ...entry, factory: mcp.watch(factory) } : entry,
	);
	return { builtins, mcp };
}
