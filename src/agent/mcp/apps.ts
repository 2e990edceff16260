/**
 * MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`) on one session's MCP servers: which tool declares a `ui://`
 * resource, reading that resource from the same server, and calling a tool for an app on its own server only.
 *
 * The connections are pi's own (pi-seams/mcp-extension.ts hands each one over as pi connects it), so an app's
 * requests go through the very client pi's tool calls use. A tool's result is stamped with its app
 * (`details.mcpApp`) as pi's MCP extension returns it, so the transcript knows the row has an app even after a
 * restart; an app-only tool (`visibility` without "model") is registered hidden, as the spec requires.
 */
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { McpConnectionLike } from "../../pi-seams/mcp-extension.js";

/** What a tool result's `details.mcpApp` holds: the app's resource, on the server in `details.server`. */
export interface McpAppStamp {
	resourceUri: string;
}

export class McpAppError extends Error {
	constructor(
		readonly code: "not_found" | "refused" | "unavailable",
		message: string,
	) {
		super(message);
		this.name = "McpAppError";
	}
}

type Tool = { name?: unknown; _meta?: unknown };

function record(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/** A tool's app resource: `_meta.ui.resourceUri`, or the deprecated flat `_meta["ui/resourceUri"]`. */
export function resourceUriOf(tool: unknown): string | undefined {
	const meta = record(record(tool)?._meta);
	const uri = record(meta?.ui)?.resourceUri ?? meta?.["ui/resourceUri"];
	return typeof uri === "string" && uri.startsWith("ui://") ? uri : undefined;
}

/** Who may call a tool: `_meta.ui.visibility`, ["model", "app"] when it says nothing. */
export function visibilityOf(tool: unknown): readonly string[] {
	const visibility = record(record(record(tool)?._meta)?.ui)?.visibility;
	return Array.isArray(visibility) ? visibility.filter((v): v is string => typeof v === "string") : ["model", "app"];
}

/** How long pier waits for a server's answer to an app's request. */
const APP_REQUEST_MS = 30_000;
/**
 * How long a request waits for a server pi has not connected yet: a page open on a session the daemon just
 * started again asks for its apps while pi is still starting the servers.
 */
const CONNECT_WAIT_MS = 15_000;

export class McpApps {
	private connections = new Map<string, McpConnectionLike>();
	private waiting = new Set<() => void>();

	/** pi connected (or reconnected) a server. */
	note(connection: McpConnectionLike): void {
		this.connections.set(connection.name, connection);
		for (const wake of [...this.waiting]) wake();
	}

	/** The server's tool `name` as the server listed it, if the server is connected and offers it. */
	tool(server: string, name: string): Tool | undefined {
		const connection = this.connections.get(server);
		if (!connection || connection.closed) return undefined;
		return connection.tools.find((t) => (t as Tool).name === name) as Tool | undefined;
	}

	private async connection(server: string, waitMs = CONNECT_WAIT_MS): Promise<McpConnectionLike> {
		const deadline = Date.now() + waitMs;
		for (;;) {
			const connection = this.connections.get(server);
			if (connection && !connection.closed) return connection;
			const left = deadline - Date.now();
			if (left <= 0) throw new McpAppError("unavailable", `MCP server "${server}" is not connected in this session`);
			await new Promise<void>((resolve) => {
				const wake = () => {
					clearTimeout(timer);
					this.waiting.delete(wake);
					resolve();
				};
				const timer = setTimeout(wake, left);
				this.waiting.add(wake);
			});
		}
	}

	/** `resources/read` of an app's `ui://` resource, on the server whose tool declared it. */
	async readResource(server: string, uri: string): Promise<unknown> {
		return (await this.connection(server)).readResource(uri, { timeoutMs: APP_REQUEST_MS });
	}

	/**
	 * A `tools/call` from the app of `server`: only a tool that server offers, and only one whose visibility
	 * includes "app". Another server's tool is never reached, whatever its name.
	 */
	async callTool(server: string, name: string, args: Record<string, unknown>): Promise<unknown> {
		// A click in an app that is on screen: its server was connected, so there is nothing to wait for.
		const connection = await this.connection(server, 0);
		const tool = connection.tools.find((t) => (t as Tool).name === name);
		if (!tool) {
			const others = [...this.connections.values()].filter((c) => c !== connection && !c.closed);
			const elsewhere = others.find((c) => c.tools.some((t) => (t as Tool).name === name));
			throw new McpAppError(
				"refused",
				elsewhere
					? `"${name}" is a tool of MCP server "${elsewhere.name}"; an app of "${server}" may call only its own server's tools`
					: `MCP server "${server}" has no tool "${name}"; an app may call only its own server's tools`,
			);
		}
		if (!visibilityOf(tool).includes("app")) {
			throw new McpAppError("refused", `tool "${name}" of MCP server "${server}" is not visible to apps`);
		}
		return connection.callTool(name, args, { timeoutMs: APP_REQUEST_MS });
	}

	/**
	 * pi's MCP extension's API with `registerTool` watched: each tool of a server is looked up as the server
	 * listed it; an app-only one is hidden from the model, and a result of one with an app names the app.
	 */
	watch(pi: ExtensionAPI): ExtensionAPI["registerTool"] {
		return (definition) => {
			const [server, toolName] = splitLabel(definition.label);
			const tool = server === undefined || toolName === undefined ? undefined : this.tool(server, toolName);
			if (!tool) return pi.registerTool(definition);
			const hidden = !visibilityOf(tool).includes("model");
			pi.registerTool({
				...definition,
				...(hidden ? { exposure: "hidden" } : {}),
				execute: this.stamping(definition as unknown as ToolDefinition),
			} as unknown as ToolDefinition);
		};
	}

	private stamping(definition: ToolDefinition): ToolDefinition["execute"] {
		const execute = definition.execute.bind(definition) as ToolDefinition["execute"];
		return async (...args) => {
			const result = await execute(...args);
			const details = record(result.details);
			const server = details?.server;
			const name = details?.tool;
			if (typeof server !== "string" || typeof name !== "string") return result;
			const uri = resourceUriOf(this.tool(server, name));
			if (!uri) return result;
			const mcpApp: McpAppStamp = { resourceUri: uri };
			return { ...result, details: { ...details, mcpApp } };
		};
	}
}

/** pi labels an MCP tool `server/tool`; a server's name has no slash. */
function splitLabel(label: unknown): [string | undefined, string | undefined] {
	if (typeof label !== "string") return [undefined, undefined];
	const slash = label.indexOf("/");
	return slash > 0 ? [label.slice(0, slash), label.slice(slash + 1)] : [undefined, undefined];
}
