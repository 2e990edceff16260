/**
 * `/api/pi/sessions/:id/mcp-apps/:entryId`: the MCP App of one tool result, and the app's tool calls.
 *
 * The tool result entry names its server and app (agent/mcp/apps.ts stamped it); the daemon reads the `ui://`
 * resource from that server, checks it (resource.ts) and serves it with pier's policy applied (csp.ts). An app's
 * `tools/call` reaches that one server only, and only a tool the server offers to apps. Whether the user asked for
 * the call (a real click or key press in the frame, just before) is checked by the page, as for app-surface
 * commands: the daemon cannot see a gesture.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { Hono } from "hono";
import { McpAppError } from "../../agent/mcp/apps.js";
import { pierVersion } from "../../version.js";
import type { Chamber } from "../chamber.js";
import { jsonBody } from "../json-body.js";
import { SessionError } from "../session-error.js";
import { Bodies, type McpAppRef, type McpAppView } from "../wire.js";
import { appDocument } from "./document.js";
import { appResource } from "./resource.js";

type Entries = { getEntry(id: string): SessionEntry | undefined };
type Message = Record<string, unknown>;

function messageOf(entry: SessionEntry | undefined): Message | undefined {
	return entry?.type === "message" ? (entry.message as unknown as Message) : undefined;
}

/** The tool result entry `entryId` and the app pier stamped on it. */
function appEntry(entries: Entries, entryId: string): { message: Message; app: McpAppRef } {
	const message = messageOf(entries.getEntry(entryId));
	const details = message?.role === "toolResult" ? (message.details as Record<string, unknown> | undefined) : undefined;
	const uri = (details?.mcpApp as { resourceUri?: unknown } | undefined)?.resourceUri;
	if (!message || typeof details?.server !== "string" || typeof details.tool !== "string" || typeof uri !== "string") {
		throw new SessionError("not_found", `entry ${entryId} is not the result of an MCP tool with an app`);
	}
	return { message, app: { server: details.server, tool: details.tool, resourceUri: uri } };
}

/** The arguments of the call this result answers: the assistant message above it that made the call. */
function toolInput(entries: Entries, entryId: string, toolCallId: unknown): Record<string, unknown> {
	let entry = entries.getEntry(entryId);
	for (let step = 0; entry && step < 64; step++) {
		const message = messageOf(entry);
		if (message?.role === "assistant" && Array.isArray(message.content)) {
			const call = (message.content as Message[]).find((p) => p.type === "toolCall" && p.id === toolCallId);
			if (call) return (call.arguments as Record<string, unknown> | undefined) ?? {};
		}
		entry = entry.parentId ? entries.getEntry(entry.parentId) : undefined;
	}
	return {};
}

/** The server's `CallToolResult` as pi kept it (`structuredContent`, without `_meta`), or pi's content. */
function toolResult(message: Message): McpAppView["toolResult"] {
	const kept = message.structuredContent as Message | undefined;
	if (kept && typeof kept === "object" && Array.isArray(kept.content)) return kept as McpAppView["toolResult"];
	const content = Array.isArray(message.content) ? message.content : [];
	return { content, ...(message.isError === true ? { isError: true } : {}) };
}

function appFailure(error: unknown): never {
	if (error instanceof McpAppError) {
		throw new SessionError(error.code === "refused" ? "mcp_app_refused" : "mcp_unavailable", error.message);
	}
	throw error;
}

export function mcpAppRoutes(app: Hono, chamber: Chamber): void {
	app.get("/sessions/:id/mcp-apps/:entryId", async (c) => {
		const live = await chamber.get(c.req.param("id"));
		const entries = live.pier.runtime.session.sessionManager;
		const entryId = c.req.param("entryId");
		const { message, app: ref } = appEntry(entries, entryId);
		const read = await live.pier.mcp.apps.readResource(ref.server, ref.resourceUri).catch(appFailure);
		const resource = appResource(ref.resourceUri, read);
		if ("error" in resource) throw new SessionError("mcp_app_invalid", `MCP server "${ref.server}": ${resource.error}`);
		const view: McpAppView = {
			...ref,
			document: appDocument(resource.html, resource.policy.policy),
			csp: { granted: resource.policy.granted, refused: resource.policy.refused },
			hostVersion: pierVersion(),
			toolInput: toolInput(entries, entryId, message.toolCallId),
			toolResult: toolResult(message),
		};
		if (resource.prefersBorder !== undefined) view.prefersBorder = resource.prefersBorder;
		return c.json(view);
	});

	app.post("/sessions/:id/mcp-apps/:entryId/tools-call", jsonBody(Bodies.mcpAppCall), async (c) => {
		const body = c.req.valid("json");
		const live = await chamber.get(c.req.param("id"));
		const { app: ref } = appEntry(live.pier.runtime.session.sessionManager, c.req.param("entryId"));
		const result = await live.pier.mcp.apps.callTool(ref.server, body.name, body.arguments ?? {}).catch(appFailure);
		return c.json({ result });
	});
}
