/**
 * The shape of a project's `.pi/mcp.json` as the trust question shows it (trust-mcp.ts builds it). Types only, so
 * the chamber's wire shapes (and through them the web app) can name it without Node's modules.
 */

/** One server entry as the question shows it. */
export interface McpServerPreview {
	name: string;
	/** The command line (stdio) or URL (HTTP), or why the entry starts nothing of its own. */
	launch: string;
}

/** The file as the question shows it: its servers, or the reason none can be shown. */
export interface ProjectMcpPreview {
	file: ".pi/mcp.json";
	servers: McpServerPreview[];
	/** Entries past the shown ones. */
	more?: number;
	/** Why the file cannot be read as MCP servers (pi starts none of them then). */
	problem?: string;
}
