/**
 * Hook names an extension may register (REFERENCES.md §6): the 33 OMP names plus
 * rpi's trust_decision and pier's permission_denied. An unknown name fails registration.
 */
export const HOOK_NAME_LIST = [
	"project_trust",
	"resources_discover",
	"session_start",
	"session_info_changed",
	"session_before_switch",
	"session_before_fork",
	"session_before_compact",
	"session_compact",
	"session_shutdown",
	"session_before_tree",
	"session_tree",
	"context",
	"before_provider_request",
	"before_provider_headers",
	"after_provider_response",
	"before_agent_start",
	"agent_start",
	"agent_end",
	"agent_settled",
	"turn_start",
	"turn_end",
	"message_start",
	"message_update",
	"message_end",
	"tool_execution_start",
	"tool_execution_update",
	"tool_execution_end",
	"model_select",
	"thinking_level_select",
	"tool_call",
	"tool_result",
	"user_bash",
	"input",
	"trust_decision",
	// pier: tells a sandboxed extension that part of its hook answer was denied for a missing grant.
	"permission_denied",
] as const;
export type HookName = (typeof HOOK_NAME_LIST)[number];
export const HOOK_NAMES: ReadonlySet<string> = new Set(HOOK_NAME_LIST);

/** Produced by pier itself (the bridge), not by pi. */
export const PIER_PRODUCED_HOOKS: ReadonlySet<string> = new Set([
	"agent_settled",
	"session_info_changed",
	"before_provider_headers",
	"permission_denied",
]);

/** The hook names a pi session fires, and so the ones the bridge subscribes to. */
export const PI_HOOKS: ReadonlySet<string> = new Set(HOOK_NAME_LIST.filter((n) => !PIER_PRODUCED_HOOKS.has(n)));
