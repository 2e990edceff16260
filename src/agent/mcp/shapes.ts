/**
 * The shapes of a session's MCP servers as pier shows them, free of Node and pi imports: the chamber's wire
 * (src/chamber/wire.ts) re-exports them to the web app.
 */

export type McpExposure = "codemode" | "deferred" | "direct" | "hidden";
export const MCP_EXPOSURES: readonly McpExposure[] = ["codemode", "deferred", "direct", "hidden"];

export type McpServerState =
	| "connected"
	| "connecting"
	| "starting"
	| "failed"
	| "needs-sign-in"
	| "disconnected"
	| "disabled"
	| "unknown";

export interface McpToolView {
	/** The session's tool name, `mcp__<server>__<tool>`. */
	name: string;
	/** The server's own name for it. */
	tool: string;
	description: string;
	exposure: McpExposure;
}

export interface McpServerView {
	name: string;
	state: McpServerState;
	/** pi's own words for it, such as `connected · 2 tools` or `failed: Connection closed`. */
	stateText: string;
	enabled: boolean;
	exposure: McpExposure;
	/** The command line of a stdio server; an HTTP server's URL as its origin only (the path may hold a secret). */
	transport: string;
	/** `global`, `project`, `extension` (registered by an extension, changes last for the session) or `config`. */
	scope: string;
	/** The mcp.json that defines the server (or the extension that registered it). */
	source: string;
	/** The trusted project's mcp.json holding an override of this global server. */
	override?: string;
	/** pi's last error for it; for a stdio server that failed, its stderr's tail (bounded). */
	error?: string;
	/** Its tools the session can reach (exposure not `hidden`). */
	tools: McpToolView[];
	/** What pi's `/mcp` offers for it now: `enable`, `disable`, `enable-project`, `disable-project`, `reconnect`, `exposure`, `signin`… */
	actions: string[];
}

export interface McpListView {
	/** false when pi's MCP extension does not run in this session (`--no-mcp`, `-builtin:mcp`, not started yet). */
	available: boolean;
	/** Config errors and overridden registrations, as pi's manager lists them. */
	notices: string[];
	servers: McpServerView[];
}

/**
 * What starting a sign-in answers: the authorization server's page for the browser to open (it comes back to the
 * daemon's callback), or, when pi's stored refresh token was enough, the server already reconnected.
 */
export type McpSignInAnswer = { authorizationUrl: string } | { server: McpServerView };
