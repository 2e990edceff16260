/** Protocol v1 host requests: load, initialize, and the invocations (host → extension) with their context. */
import { type Static, Type } from "typebox";
import { CommandDescriptor, MARKDOWN_MESSAGE_TYPES } from "./registrations.js";
import { closed, Json, literals, Opt, tagged, ThinkingLevel } from "./schema-kit.js";

export const ExtensionEvent = closed({ name: Type.String(), data: Opt(Json) });

export const Invocation = Type.Union([
	tagged("kind", "command", { name: Type.String(), arguments: Type.String() }),
	tagged("kind", "tool", { name: Type.String(), callId: Type.String(), arguments: Json }),
	tagged("kind", "event", { event: ExtensionEvent }),
	tagged("kind", "provider", {
		providerId: Type.String(),
		sessionId: Opt(Type.String()),
		messages: Opt(Type.Array(Json)),
		options: Opt(Json),
		/** pier addition: the model asked for (as extensions see models, bridge/context.ts). */
		model: Opt(Json),
		/** pier addition: the context's system prompt and tools (name, description, parameters). */
		systemPrompt: Opt(Type.String()),
		tools: Opt(Type.Array(Json)),
	}),
	tagged("kind", "render_message", {
		request: closed({ messageType: Type.String(), message: Json, expanded: Opt(Type.Boolean()) }),
	}),
	/** pier addition: a custom entry of a registered `entry_renderer` type; answered like `render_message`. */
	tagged("kind", "render_entry", {
		request: closed({ entryType: Type.String(), entry: Json, expanded: Opt(Type.Boolean()) }),
	}),
	/** pier addition: markdown of one surface through the extension's transformer; answered `{"markdown": …}`. */
	tagged("kind", "transform_markdown", {
		request: closed({
			markdown: Type.String(),
			messageType: literals([...MARKDOWN_MESSAGE_TYPES]),
			isStreaming: Opt(Type.Boolean()),
			availableWidth: Opt(Type.Integer({ minimum: 1 })),
			messageId: Opt(Type.String()),
			timestamp: Opt(Type.String()),
		}),
	}),
	tagged("kind", "shortcut", { key: Type.String() }),
	tagged("kind", "overlay_render", { id: Type.String() }),
	tagged("kind", "overlay_event", {
		id: Type.String(),
		event: Type.Union([
			tagged("kind", "submit", { text: Type.String() }),
			tagged("kind", "key", { action: Type.String() }),
		]),
	}),
]);
export type Invocation = Static<typeof Invocation>;

export const ContextSnapshot = closed({
	sessionName: Opt(Type.String()),
	sessionId: Opt(Type.String()),
	sessionFile: Opt(Type.String()),
	isIdle: Type.Boolean(),
	projectTrusted: Type.Boolean(),
	hasPendingMessages: Type.Boolean(),
	contextUsage: Opt(
		closed({ tokens: Opt(Type.Integer()), contextWindow: Type.Integer(), percent: Opt(Type.Number()) }),
	),
	activeTools: Opt(Type.Array(Type.String())),
	allTools: Opt(Type.Array(Type.String())),
	commands: Opt(Type.Array(CommandDescriptor)),
	flagValues: Opt(Type.Record(Type.String(), Json)),
	systemPrompt: Type.String(),
	model: Opt(Json),
	thinkingLevel: ThinkingLevel,
});
export type ContextSnapshot = Static<typeof ContextSnapshot>;

export const HostRequest = Type.Union([
	tagged("kind", "load", {}),
	tagged("kind", "initialize", {}),
	tagged("kind", "invoke", { invocation: Invocation, context: Opt(ContextSnapshot) }),
]);
export type HostRequest = Static<typeof HostRequest>;
