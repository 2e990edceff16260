/**
 * pi reports a tool name two extensions registered as `Failed to load extension "<inline:N>": Tool "x"
 * conflicts with <path>` — naming pier's bridge by its factory slot, and saying it failed when it did not.
 * The bridge is pier's last factory, so it never wins such a name: this says whose tool lost to whose, and
 * what that means for the losing extension's hook answers.
 */
import type { ExtensionHost } from "../host/host.js";

export interface PiLoadError {
	path: string;
	error: string;
}

const CONFLICT = /^Tool "(.+)" conflicts with (.+)$/s;

/** The user's message for one of pi's extension load errors; `bridgePath` is the bridge's `<inline:N>`. */
export function describePiLoadError(
	host: ExtensionHost,
	bridgePath: string,
	{ path, error }: PiLoadError,
): { type: "error" | "warning"; message: string } {
	const conflict = path === bridgePath ? CONFLICT.exec(error) : null;
	const tool = conflict ? host.registry.tools.get(conflict[1]!) : undefined;
	if (!conflict || !tool) return { type: "error", message: `Failed to load extension "${path}": ${error}` };
	const message = shadowed(conflict[1]!, tool.instance.id, tool.instance.spec.source, `pi extension ${conflict[2]}`);
	return { type: "warning", message };
}

/** SDK tools (pier's own `tools` option) replace extension tools silently in pi; say so for protocol ones. */
export function sdkToolConflicts(host: ExtensionHost, sdkToolNames: readonly string[]): string[] {
	return sdkToolNames.flatMap((name) => {
		const tool = host.registry.tools.get(name);
		return tool
			? [
					shadowed(
						name,
						tool.instance.id,
						tool.instance.spec.source,
						"a tool given to the session by its embedder (SDK)",
					),
				]
			: [];
	});
}

function shadowed(name: string, id: string, source: string, winner: string): string {
	return `tool "${name}" of extension ${id} (${source}) is not used: ${winner} registered "${name}" first, and pi runs that one; ${id}'s hook answers that change ${name} calls are held to the grant that tool needs`;
}
