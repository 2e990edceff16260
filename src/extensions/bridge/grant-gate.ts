/**
 * The grant check at the one place a protocol extension's hook answer becomes pi's result: which grant a
 * power needs, whether the answering extension holds it, and what a denial says. Only sandboxed (QuickJS)
 * extensions are gated; process and native extensions already run arbitrary code.
 */
import type { ExtensionInstance } from "../host/instance.js";
import { BUILTIN_TOOL_POWER, type Grant, GRANT_FOR, denialMessage, type ToolPower } from "../grants/vocabulary.js";
import type { Gate, PowerUse } from "./hook-results.js";

/** What one extension holds now, read fresh at each check (a grant or revoke applies at once). */
export interface GrantsInForce {
	grants: ReadonlySet<Grant>;
	/** What `pier grant` names this extension by (its id, or its directory when the id alone is not enough). */
	target: string;
	/** Why a grant the user gave does not apply to this extension (bound to another directory, code changed). */
	note?: string;
}

export type GrantLookup = (instance: ExtensionInstance) => GrantsInForce;

/**
 * Whose definition pi runs under a tool name right now. pi gives a name to the first extension that registers
 * it (the user's in-process extensions load before pier's bridge) and SDK tools replace both, so pier's own
 * registry cannot answer this: only pi's tool table can.
 */
export type ToolOwner =
	| { kind: "builtin" }
	/** the bridge's tool, i.e. this protocol extension's registration is the one pi runs */
	| { kind: "protocol"; instance: ExtensionInstance; capability?: ToolPower }
	/** an in-process extension's or the SDK's tool: code pier knows nothing about */
	| { kind: "other"; source: string }
	| { kind: "missing" };

export type ToolOwnerLookup = (tool: string) => ToolOwner;

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
 * What rewriting a call of `tool` lets `instance` do. Only the extension's own tool, the definition pi
 * actually runs, is bounded by its sandbox. pi's built-ins count by name; another protocol extension's tool by
 * what it declares (nothing declared may do anything: a process tool is arbitrary code, and another
 * sandbox's tool acts with that extension's state and grants, not this one's). Anything else, in-process and
 * SDK tools included, counts as running commands, as rpi treats unknown tool metadata.
 */
export function toolPower(owner: ToolOwner, tool: string, instance: ExtensionInstance): ToolPower | undefined {
	switch (owner.kind) {
		case "builtin":
			return BUILTIN_TOOL_POWER.get(tool) ?? "exec";
		case "protocol":
			return owner.instance === instance ? undefined : (owner.capability ?? "exec");
		default:
			return "exec";
	}
}

function needs(
	ownerOf: ToolOwnerLookup,
	instance: ExtensionInstance,
	use: PowerUse,
): { grant: Grant; what: string } | undefined {
	switch (use.kind) {
		case "tool_input":
		case "tool_call": {
			const owner = ownerOf(use.tool);
			const power = toolPower(owner, use.tool, instance);
			if (!power) return undefined;
			const whose = owner.kind === "other" ? ` (the tool pi runs under that name is ${owner.source}'s)` : "";
			const what =
				use.kind === "tool_input"
					? `replace the input of ${use.tool}${whose}`
					: `add or change a ${use.tool} call in the model's message${whose}`;
			return { grant: GRANT_FOR[power], what };
		}
		case "user_bash":
			return { grant: "run", what: "answer a user's ! command in its place" };
		case "resource_paths":
			return { grant: "read", what: "point pi at skill, prompt or theme paths" };
		case "provider_request":
			return { grant: "net", what: "change the request sent to the model provider" };
	}
}

/** A grant an answer needed, held or not: what the audit trail records. */
export interface GrantUse {
	hook: string;
	grant: Grant;
	/** What the grant let it do, in the words of a denial ("replace the input of bash"). */
	what: string;
	toolName?: string;
}

/**
 * The gate for one answer of `instance` to `hook`; `onDenied` hears of each denial, `onDecided` of every answer
 * that needed a grant (used or refused).
 */
export function gateFor(
	ownerOf: ToolOwnerLookup,
	instance: ExtensionInstance,
	hook: string,
	grantsOf: GrantLookup,
	onDenied: (denial: Denial) => void,
	onDecided?: (use: GrantUse, allowed: boolean) => void,
): Gate {
	if (!isSandboxed(instance)) return () => true;
	return (use) => {
		const need = needs(ownerOf, instance, use);
		if (!need) return true;
		const held = grantsOf(instance);
		const decided: GrantUse = {
			hook,
			grant: need.grant,
			what: need.what,
			...("tool" in use ? { toolName: use.tool } : {}),
		};
		if (held.grants.has(need.grant)) {
			onDecided?.(decided, true);
			return true;
		}
		onDecided?.(decided, false);
		onDenied({
			type: "permission_denied",
			hook,
			grant: need.grant,
			message: denialMessage(instance.id, need.what, need.grant, held.target, held.note),
			...("tool" in use ? { toolName: use.tool } : {}),
			...("toolCallId" in use && use.toolCallId ? { toolCallId: use.toolCallId } : {}),
		});
		return false;
	};
}
