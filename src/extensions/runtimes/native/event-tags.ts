/**
 * rpi's 37 EventTags (native-abi.md §2.5) and where pier feeds each from: the pier hook whose producer is
 * the same moment, and the payload arm the plugin reads. Pure data (no koffi), so pier's own code and docs
 * tests can read it too.
 *
 * 33 tags have a pier hook of the same meaning. The four rpi-only tags:
 * - BeforeTuiStart (33): pier has no moment before its terminal UI starts that an extension sees; the nearest
 *   real producer is the first `session_start` in `tui` mode, so it is fired just before SessionStart there
 *   (its ABORT is advisory: pier does not exit with code 3).
 * - UiPromptStart (34), UiPromptEnd (35), EditorChange (36): pier has no producer for them (no prompt-editor
 *   lifecycle or keystroke stream reaches extensions); they are never fired.
 */

/** The union arm of `StablePluginEvent.payload` a tag is delivered with. */
export type PayloadArm = "empty" | "message" | "tool_call" | "tool_result" | "data";

export interface TagInfo {
	tag: number;
	name: string;
	/** The pier hook that feeds it; undefined = never fired (see above). */
	hook: string | undefined;
	arm: PayloadArm;
}

const T = (tag: number, name: string, hook: string | undefined, arm: PayloadArm): TagInfo => ({ tag, name, hook, arm });

export const EVENT_TAGS: readonly TagInfo[] = [
	T(0, "ProjectTrust", "project_trust", "data"),
	T(1, "ResourcesDiscover", "resources_discover", "data"),
	T(2, "SessionStart", "session_start", "empty"),
	T(3, "SessionInfoChanged", "session_info_changed", "data"),
	T(4, "SessionBeforeSwitch", "session_before_switch", "data"),
	T(5, "SessionBeforeFork", "session_before_fork", "data"),
	T(6, "SessionBeforeCompact", "session_before_compact", "data"),
	T(7, "SessionCompact", "session_compact", "data"),
	T(8, "SessionShutdown", "session_shutdown", "empty"),
	T(9, "SessionBeforeTree", "session_before_tree", "data"),
	T(10, "SessionTree", "session_tree", "data"),
	T(11, "Context", "context", "data"),
	T(12, "BeforeProviderRequest", "before_provider_request", "data"),
	T(13, "BeforeProviderHeaders", "before_provider_headers", "data"),
	T(14, "AfterProviderResponse", "after_provider_response", "data"),
	T(15, "BeforeAgentStart", "before_agent_start", "data"),
	T(16, "AgentStart", "agent_start", "empty"),
	T(17, "AgentEnd", "agent_end", "empty"),
	T(18, "AgentSettled", "agent_settled", "data"),
	T(19, "TurnStart", "turn_start", "empty"),
	T(20, "TurnEnd", "turn_end", "empty"),
	T(21, "MessageStart", "message_start", "message"),
	T(22, "MessageUpdate", "message_update", "message"),
	T(23, "MessageEnd", "message_end", "message"),
	T(24, "ToolExecutionStart", "tool_execution_start", "tool_call"),
	T(25, "ToolExecutionUpdate", "tool_execution_update", "tool_call"),
	T(26, "ToolExecutionEnd", "tool_execution_end", "tool_result"),
	T(27, "ModelSelect", "model_select", "data"),
	T(28, "ThinkingLevelSelect", "thinking_level_select", "data"),
	T(29, "ToolCall", "tool_call", "tool_call"),
	T(30, "ToolResult", "tool_result", "tool_result"),
	T(31, "UserBash", "user_bash", "data"),
	T(32, "Input", "input", "data"),
	T(33, "BeforeTuiStart", "session_start", "empty"),
	T(34, "UiPromptStart", undefined, "empty"),
	T(35, "UiPromptEnd", undefined, "empty"),
	T(36, "EditorChange", undefined, "data"),
];

export const BEFORE_TUI_START = 33;

/** What a handler's ABORT (2) does on each lifecycle hook; elsewhere it is logged and ignored. */
export const ABORT_RESULT: Readonly<Record<string, (plugin: string) => unknown>> = {
	tool_call: (plugin) => ({ block: true, reason: `blocked by native plugin ${plugin}` }),
	session_before_switch: () => ({ cancel: true }),
	session_before_fork: () => ({ cancel: true }),
	session_before_compact: () => ({ cancel: true }),
	session_before_tree: () => ({ cancel: true }),
	input: () => ({ action: "handled" }),
};

/** CLAIMED (3) is honoured where the host arbitrates: input (the plugin consumed it). */
export const CLAIM_RESULT: Readonly<Record<string, unknown>> = { input: { action: "handled" } };
