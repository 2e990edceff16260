/** Protocol v1 session actions (extension → host, under an `action` runtime request). */
import { type Static, Type } from "typebox";
import { closed, Json, literals, Opt, tagged, ThinkingLevel } from "./schema-kit.js";

const Delivery = literals(["steer", "followUp", "nextTurn"]);
export type Delivery = Static<typeof Delivery>;
const MessageContent = Type.Union([Type.String(), Type.Array(Json)]);
export type MessageContent = Static<typeof MessageContent>;

export const RuntimeAction = Type.Union([
	tagged("kind", "send_message", {
		message: closed({
			customType: Type.String(),
			content: MessageContent,
			display: Type.Boolean(),
			details: Opt(Json),
		}),
		delivery: Delivery,
		triggerTurn: Opt(Type.Boolean()),
	}),
	tagged("kind", "send_user_message", { content: MessageContent, delivery: Delivery }),
	tagged("kind", "append_entry", { customType: Type.String(), data: Opt(Json) }),
	tagged("kind", "set_session_name", { name: Type.String() }),
	tagged("kind", "set_label", { entryId: Type.String(), label: Opt(Type.String()) }),
	tagged("kind", "get_active_tools", {}),
	tagged("kind", "get_all_tools", {}),
	tagged("kind", "set_active_tools", { toolNames: Type.Array(Type.String()) }),
	tagged("kind", "get_commands", {}),
	tagged("kind", "set_model", { model: Json }),
	tagged("kind", "set_thinking_level", { level: ThinkingLevel }),
	tagged("kind", "abort", {}),
	tagged("kind", "shutdown", {}),
	tagged("kind", "compact", { customInstructions: Opt(Type.String()) }),
	tagged("kind", "reload", {}),
	tagged("kind", "wait_for_idle", {}),
	tagged("kind", "get_flag", { name: Type.String() }),
	// pier additions (native runtime actions 7, 10, 11–14, 20; any runtime may use them)
	tagged("kind", "get_thinking_level", {}),
	tagged("kind", "get_system_prompt", {}),
	tagged("kind", "get_session_branch", {}),
	tagged("kind", "new_session", { parentSession: Opt(Type.String()) }),
	tagged("kind", "fork", { entryId: Type.String(), position: Opt(literals(["before", "at"])) }),
	tagged("kind", "navigate_tree", {
		targetId: Type.String(),
		summarize: Opt(Type.Boolean()),
		customInstructions: Opt(Type.String()),
		replaceInstructions: Opt(Type.Boolean()),
		label: Opt(Type.String()),
	}),
	tagged("kind", "switch_session", { sessionPath: Type.String() }),
]);
export type RuntimeAction = Static<typeof RuntimeAction>;
