/**
 * A pi event as protocol extensions receive it: most cross as they are (JSON.stringify drops functions and
 * sends an AbortSignal as `{}`); these carry credentials an extension must not see (REFERENCES decision 14).
 */

/** The fields of pi's Model an extension sees: no headers, no key, nothing else pier has not looked at. */
const MODEL_FIELDS = [
	"id",
	"name",
	"api",
	"provider",
	"reasoning",
	"thinkingLevelMap",
	"input",
	"cost",
	"contextWindow",
	"maxTokens",
] as const;

/** The fields of an MCP server's config that say what it is, not how to reach it with whose secrets. */
const MCP_CONFIG_FIELDS = ["type", "command", "exposure", "description", "toolExposure", "timeout", "enabled"] as const;

/**
 * Only `fields` of `source`, and its `urlKey` URL with its origin and, if `withPath`, its path: never a user,
 * password or query, where some providers and servers carry a key.
 */
function shownFields(
	source: Record<string, unknown>,
	fields: readonly string[],
	urlKey: string,
	withPath: boolean,
): Record<string, unknown> {
	const shown: Record<string, unknown> = {};
	for (const key of fields) if (source[key] !== undefined) shown[key] = source[key];
	const address = source[urlKey];
	if (typeof address === "string") {
		try {
			const url = new URL(address);
			shown[urlKey] = withPath ? `${url.origin}${url.pathname}` : url.origin;
		} catch {
			// not a URL: nothing of it is shown
		}
	}
	return shown;
}

/** A model as extensions see it (REFERENCES decision 14: credentials never reach extensions); headers `null`, as rpi. */
export function modelForExtensions(model: unknown): unknown {
	if (!model || typeof model !== "object") return model;
	return { ...shownFields(model as Record<string, unknown>, MODEL_FIELDS, "baseUrl", true), headers: null };
}

/**
 * An MCP server an in-process extension registered: its name, the registering extension, and the config without
 * `env`, `headers`, `oauth`, `auth`, `args` and `cwd` (values or arguments that may be keys), the URL as its origin
 * only: hosted MCP services put the account's secret in the path.
 */
export function mcpServerForExtensions(server: unknown): unknown {
	if (!server || typeof server !== "object") return server;
	const { name, extensionPath, config } = server as { name?: unknown; extensionPath?: unknown; config?: unknown };
	const source = (config && typeof config === "object" ? config : {}) as Record<string, unknown>;
	return { name, extensionPath, config: shownFields(source, MCP_CONFIG_FIELDS, "url", false) };
}

/** `event` as the extension is sent it under `hook`. */
export function eventForExtensions(hook: string, event: Record<string, unknown>): Record<string, unknown> {
	if (hook === "model_select") {
		// pi's live Model, headers and all: extensions get it without them.
		return {
			...event,
			model: modelForExtensions(event.model),
			...(event.previousModel ? { previousModel: modelForExtensions(event.previousModel) } : {}),
		};
	}
	if (hook === "mcp_servers_change" && Array.isArray(event.servers)) {
		return { ...event, servers: event.servers.map(mcpServerForExtensions) };
	}
	return event;
}
