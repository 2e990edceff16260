/** Protocol v1 registrations: what an extension declares in its load phase (`register` frames). */
import { type Static, Type } from "typebox";
import type { Capability } from "./capabilities.js";
import { closed, Json, JsonAs, literals, Opt, tagged } from "./schema-kit.js";

export const CommandDescriptor = closed({ name: Type.String(), description: Opt(Type.String()) });
export type CommandDescriptor = Static<typeof CommandDescriptor>;

export const ToolDescriptor = closed({
	name: Type.String(),
	label: Type.String(),
	description: Type.String(),
	/** A JSON schema; pi checks it when the tool is registered. */
	parameters: JsonAs<Record<string, unknown>>(),
	capability: Opt(literals(["read", "write", "exec"])),
	executionMode: Opt(literals(["default", "sequential", "parallel"])),
	promptGuidelines: Opt(Type.Array(Type.String())),
});
export type ToolDescriptor = Static<typeof ToolDescriptor>;

/**
 * pier addition: a model a `provider` registration offers (pi's ProviderModelConfig, the fields an extension may
 * set). Omitted fields get the defaults in bridge/providers.ts.
 */
export const MAX_PROVIDER_MODELS = 64;
export const ProviderModel = closed({
	id: Type.String(),
	name: Opt(Type.String()),
	reasoning: Opt(Type.Boolean()),
	input: Opt(Type.Array(literals(["text", "image"]))),
	contextWindow: Opt(Type.Integer({ minimum: 1 })),
	maxTokens: Opt(Type.Integer({ minimum: 1 })),
	cost: Opt(
		closed({ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number() }),
	),
});
export type ProviderModel = Static<typeof ProviderModel>;

/** pi's markdown surfaces (MarkdownMessageType); a transformer registered without them gets pi's default three. */
export const MARKDOWN_MESSAGE_TYPES = [
	"user",
	"assistant",
	"assistant-thinking",
	"custom",
	"summary",
	"changelog",
] as const;
export type MarkdownMessageType = (typeof MARKDOWN_MESSAGE_TYPES)[number];

export const OverlayInputDeclaration = closed({ placeholder: Opt(Type.String()), multiline: Opt(Type.Boolean()) });

export const Registration = Type.Union([
	tagged("kind", "command", { command: CommandDescriptor }),
	tagged("kind", "tool", { tool: ToolDescriptor }),
	tagged("kind", "event_hook", { hook: closed({ event: Type.String() }) }),
	tagged("kind", "message_renderer", { renderer: closed({ messageType: Type.String() }) }),
	/** pier addition: pi's `registerEntryRenderer` (custom session entries of `entryType`; `render_entry`). */
	tagged("kind", "entry_renderer", { renderer: closed({ entryType: Type.String() }) }),
	/** pier addition: pi's `registerMarkdownTransformer`, one per extension (`transform_markdown`). */
	tagged("kind", "markdown_transformer", {
		transformer: closed({ messageTypes: Type.Array(literals([...MARKDOWN_MESSAGE_TYPES]), { minItems: 1 }) }),
	}),
	tagged("kind", "provider_metadata", {
		provider: closed({
			id: Type.String(),
			name: Opt(Type.String()),
			baseUrl: Opt(Type.String()),
			api: Opt(Type.String()),
			models: Opt(Type.Array(Json)),
			metadata: Opt(Json),
		}),
	}),
	tagged("kind", "provider", {
		provider: closed({
			id: Type.String(),
			label: Opt(Type.String()),
			api: Type.String(),
			capabilities: Opt(Type.Array(Type.String())),
			/** pier addition: shown as the models' base URL. */
			baseUrl: Opt(Type.String()),
			/** pier addition: the models pi's registry offers under this provider (bridge/providers.ts). */
			models: Opt(Type.Array(ProviderModel, { maxItems: MAX_PROVIDER_MODELS })),
		}),
	}),
	tagged("kind", "shortcut", { shortcut: closed({ key: Type.String(), description: Opt(Type.String()) }) }),
	tagged("kind", "flag", {
		flag: closed({
			name: Type.String(),
			description: Opt(Type.String()),
			type: literals(["boolean", "string"]),
			default: Opt(Json),
		}),
	}),
	tagged("kind", "overlay", {
		overlay: closed({ id: Type.String(), title: Type.String(), input: Opt(OverlayInputDeclaration) }),
	}),
]);
export type Registration = Static<typeof Registration>;
export type RegistrationKind = Registration["kind"];

/** The capability each registration kind needs (rpi's gate; shortcuts and flags go with commands). */
export const REGISTRATION_CAPABILITY: Readonly<Record<RegistrationKind, Capability>> = {
	command: "commands",
	tool: "tools",
	event_hook: "event_hooks",
	message_renderer: "message_renderers",
	entry_renderer: "message_renderers",
	markdown_transformer: "message_renderers",
	provider_metadata: "provider_metadata",
	provider: "provider",
	shortcut: "commands",
	flag: "commands",
	overlay: "overlays",
};
