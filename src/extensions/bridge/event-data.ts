/**
 * A pi event as protocol extensions receive it: most cross as they are (JSON.stringify drops functions and
 * sends an AbortSignal as `{}`); these carry credentials an extension must not see (REFERENCES decision 14).
 */
import { modelForExtensions } from "./context.js";

/** The fields of an MCP server's config that say what it is, not how to reach it with whose secrets. */
const MCP_CONFIG_FIELDS = ["type", "command", "exposure", "description", "toolExposure", "timeout", "enabled"] as const;

/**
 * An MCP server an in-process extension registered: its name, the registering extension, and the config without
 * `env`, `headers`, `oauth`, `auth`, `args` and `cwd` (values or arguments that may be keys), the URL without a
 * user, password or query.
 */
export function mcpServerForExtensions(server: unknown): unknown {
	if (!server || typeof server !== "object") return server;
	const { name, extensionPath, config } = server as { name?: unknown; extensionPath?: unknown; config?: unknown };
	const source = (config && typeof config === "object" ? config : {}) as Record<string, unknown>;
	const shown: Record<string, unknown> = {};
	for (const key of MCP_CONFIG_FIELDS) if (source[key] !== undefined) shown[key] = source[key];
	if (typeof source.url === "string") {
		try {
			const url = new URL(source.url);
			shown.url = `${url.origin}${url.pathname}`;
		} catch {
			// not a URL: nothing of it is shown
		}
	}
	return { name, extensionPath, config: shown };
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
