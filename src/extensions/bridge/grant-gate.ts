/**
 * The grant check at the one place a protocol extension's hook answer becomes pi's result: which grant a
 * power needs, whether the answering extension holds it, and what a denial says. Only sandboxed (QuickJS)
 * extensions are gated; process and native extensions already run arbitrary code.
 */
import type { ExtensionHost } from "../host/host.js";
import type { ExtensionInstance } from "../host/instance.js";
import { BUILTIN_TOOL_POWER, type Grant, GRANT_FOR, denialMessage, type ToolPower } from "../grants/vocabulary.js";
import type { Gate, PowerUse } from "./hook-results.js";

/** The grants in force for an extension id now (read fresh: a grant or revoke applies at once). */
export type GrantLookup = (extensionId: string) => ReadonlySet<Grant>;

/** What the extension learns through its `permission_denied` hook, and the user through diagnostics. */
export interface Denial {
	type: "permission_denied";
	hook: string;
	grant: Grant;
	message: string;
	toolName?: string;
	toolCallId?: string;
}

export const isSandboxed = (instance: ExtensionInstance): boolean => instance.spec.runtime === "quickjs";

/**
 * What a tool does, as far as pier knows. pi's built-ins by name; protocol tools by their declared
 * capability; a tool of a sandboxed extension is bounded by its sandbox (no grant needed); anything else,
 * in-process extensions' and SDK tools included, may do anything and counts as running commands (as rpi
 * treats unknown tool metadata).
 */
export function toolPower(host: ExtensionHost, tool: string): ToolPower | undefined {
	const builtin = BUILTIN_TOOL_POWER[tool];
	if (builtin) return builtin;
	const registered = host.registry.tools.get(tool);
	if (registered && isSandboxed(registered.instance)) return undefined;
	return registered?.descriptor.capability ?? "exec";
}

function needs(host: ExtensionHost, use: PowerUse): { grant: Grant; what: string } | undefined {
	switch (use.kind) {
		case "tool_input":
		case "tool_call": {
			const power = toolPower(host, use.tool);
			if (!power) return undefined;
			const what =
				use.kind === "tool_input"
					? `replace the input of ${use.tool}`
					: `add or change a ${use.tool} call in the model's message`;
			return { grant: GRANT_FOR[power], what };
		}
		case "user_bash":
			return { grant: "run", what: "answer a user's ! command in its place" };
		case "resource_paths":
			return { grant: "read", what: "point pi at skill, prompt or theme paths" };
	}
}

/** The gate for one answer of `instance` to `hook`; `onDenied` hears of each denial. */
export function gateFor(
	host: ExtensionHost,
	instance: ExtensionInstance,
	hook: string,
	grantsOf: GrantLookup,
	onDenied: (denial: Denial) => void,
): Gate {
	if (!isSandboxed(instance)) return () => true;
	return (use) => {
		const need = needs(host, use);
		if (!need || grantsOf(instance.id).has(need.grant)) return true;
		onDenied({
			type: "permission_denied",
			hook,
			grant: need.grant,
			message: denialMessage(instance.id, need.what, need.grant),
			...("tool" in use ? { toolName: use.tool } : {}),
			...("toolCallId" in use && use.toolCallId ? { toolCallId: use.toolCallId } : {}),
		});
		return false;
	};
}
