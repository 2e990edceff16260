/** The permission vocabulary of protocol v1 (rpi's `ExtensionCapability` / `ExtensionUiCapability`). */
export const CAPABILITIES = [
	"commands",
	"tools",
	"event_hooks",
	"message_renderers",
	"provider_metadata",
	"provider",
	"session_actions",
	"ui",
	"overlays",
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const UI_CAPABILITIES = [
	"select",
	"confirm",
	"input",
	"editor",
	"notify",
	"status",
	"widget",
	"title",
	"set_editor_text",
	"editor_text",
	"working",
	"hidden_thinking",
	"theme",
	"tools_expanded",
	"overlay",
] as const;
export type UiCapability = (typeof UI_CAPABILITIES)[number];

/** QuickJS factories cannot carry these across the protocol boundary. */
export const QUICKJS_UNSUPPORTED_CAPABILITIES: readonly Capability[] = ["message_renderers", "provider_metadata"];

/** What an extension may do: granted by the host, declared by the extension (declared ⊆ granted). */
export interface PermissionSet {
	capabilities: ReadonlySet<Capability>;
	uiCapabilities: ReadonlySet<UiCapability>;
}

export function permissions(capabilities: Iterable<Capability>, uiCapabilities: Iterable<UiCapability>): PermissionSet {
	return { capabilities: new Set(capabilities), uiCapabilities: new Set(uiCapabilities) };
}
