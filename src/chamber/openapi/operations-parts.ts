/**
 * The routes of the parts mounted on /api/pi (MCP, Changes, worktrees, grants, drawings, files, terminals, providers): entries of operations.ts.
 */
import { Type } from "typebox";
import { type ChangesView, ChangesBodies, type RevertResult } from "../changes/wire.js";
import type { FileListing, FilePreview, UploadResult } from "../files/files-wire.js";
import { UploadBody } from "../files/upload-body.js";
import type { CustomProviderResult, ProviderView } from "../provider-wire.js";
import { TerminalBodies } from "../terminal/terminal-wire.js";
import { Bodies, type DrawingsAnswer, type McpAppView, type McpListView } from "../wire.js";
import { described } from "../wire-views.js";
import {
	type WorktreeMerged,
	type WorktreeRemoved,
	type WorktreeStatus,
	WorktreeBodies,
	type WorktreeView,
} from "../worktrees/wire.js";
import { type Operation, Ok, ProviderKey, McpServer, Terminal } from "./operation.js";

export const PART_OPERATIONS = {
	// ---- MCP (mcp-routes.ts, mcp-apps/routes.ts) ----
	"GET /api/pi/sessions/:id/mcp": {
		summary: "pi's MCP servers of a running session.",
		response: described<McpListView>("pi's /mcp list."),
	},
	"POST /api/pi/sessions/:id/mcp/:server/enable": {
		summary: "Enable an MCP server.",
		body: Bodies.mcpEnable,
		response: McpServer,
	},
	"POST /api/pi/sessions/:id/mcp/:server/disable": {
		summary: "Disable an MCP server.",
		body: Bodies.mcpEnable,
		response: McpServer,
	},
	"POST /api/pi/sessions/:id/mcp/:server/reconnect": {
		summary: "Reconnect an MCP server.",
		body: Bodies.empty,
		response: McpServer,
	},
	"POST /api/pi/sessions/:id/mcp/:server/signin": {
		summary: "Start an MCP server's OAuth sign-in.",
		body: Bodies.empty,
		response: Type.Union([Type.Object({ authorizationUrl: Type.String() }), McpServer]),
	},
	"POST /api/pi/sessions/:id/mcp/:server/exposure": {
		summary: "How an MCP server's tools are exposed.",
		body: Bodies.mcpExposure,
		response: McpServer,
	},
	"GET /api/pi/sessions/:id/mcp-apps/:entryId": {
		summary: "An MCP App, checked and ready for the app frame.",
		response: described<McpAppView>("An MCP App (src/chamber/wire.ts McpAppView)."),
	},
	"POST /api/pi/sessions/:id/mcp-apps/:entryId/tools-call": {
		summary: "An MCP App's tools/call.",
		body: Bodies.mcpAppCall,
		response: Type.Object({ result: Type.Unknown() }),
	},
	"GET /api/mcp-oauth/callback": {
		summary: "Where an MCP server's OAuth sign-in comes back (a page for the browser).",
		content: "text/html",
		public: true,
	},

	// ---- Changes (changes/routes.ts) ----
	"GET /api/pi/sessions/:id/changes": {
		summary: "What the agent changed in the project, by file and turn.",
		response: described<ChangesView>("src/chamber/changes/wire.ts ChangesView."),
	},
	"GET /api/pi/sessions/:id/changes/file": {
		summary: "One changed file's diff.",
		query: { path: Type.String() },
		response: described<unknown>("A file's change (src/chamber/changes/wire.ts)."),
	},
	"POST /api/pi/sessions/:id/changes/revert": {
		summary: "Revert a file or a turn.",
		body: ChangesBodies.revert,
		response: described<RevertResult>("src/chamber/changes/wire.ts RevertResult."),
	},
	"POST /api/pi/sessions/:id/changes/stage": {
		summary: "Stage paths in git.",
		body: ChangesBodies.stage,
		response: Type.Object({ staged: Type.Array(Type.String()) }),
	},
	"POST /api/pi/sessions/:id/changes/commit": {
		summary: "Commit what is staged.",
		body: ChangesBodies.commit,
		response: described<unknown>("The commit made (src/chamber/changes/wire.ts)."),
	},

	// ---- worktrees (worktrees/routes.ts) ----
	"POST /api/pi/worktrees": {
		summary: "A git worktree for a new session.",
		body: WorktreeBodies.create,
		response: Type.Object({ worktree: described<WorktreeView>("src/chamber/worktrees/wire.ts WorktreeView.") }),
		status: 201,
	},
	"GET /api/pi/sessions/:id/worktree": {
		summary: "The session's worktree, or null.",
		response: Type.Object({
			worktree: Type.Union([described<WorktreeStatus>("src/chamber/worktrees/wire.ts WorktreeStatus."), Type.Null()]),
		}),
	},
	"POST /api/pi/sessions/:id/worktree/merge": {
		summary: "Merge the session's worktree branch.",
		body: WorktreeBodies.merge,
		response: described<WorktreeMerged>("src/chamber/worktrees/wire.ts WorktreeMerged."),
	},
	"POST /api/pi/sessions/:id/worktree/remove": {
		summary: "Remove the session's worktree.",
		body: WorktreeBodies.remove,
		response: described<WorktreeRemoved>("src/chamber/worktrees/wire.ts WorktreeRemoved."),
	},

	// ---- grants, palette, drawings, files, terminals, providers ----
	"GET /api/pi/grants": {
		summary: "Extensions' capability grants.",
		response: described<unknown>("The grant overview (src/chamber/grant-routes.ts)."),
	},
	"PUT /api/pi/grants/:id": {
		summary: "Set an extension's grants.",
		response: Type.Object({ id: Type.String(), dir: Type.Optional(Type.String()), grants: Type.Array(Type.String()) }),
	},
	"GET /api/pi/tui-palette.css": { summary: "The token theme's palette for drawings.", content: "text/css" },
	"GET /api/pi/sessions/:id/drawings": {
		summary: "Rows an extension draws, drawn with pi's components.",
		query: { rows: Type.String(), width: Type.String(), expanded: Type.String() },
		response: described<DrawingsAnswer>("src/chamber/wire.ts DrawingsAnswer."),
	},
	"GET /api/pi/sessions/:id/files/list": {
		summary: "One project directory.",
		query: { dir: Type.String() },
		response: described<FileListing>("src/chamber/files/files-wire.ts FileListing."),
	},
	"GET /api/pi/sessions/:id/files/preview": {
		summary: "A project file's preview.",
		query: { path: Type.String() },
		response: described<FilePreview>("src/chamber/files/files-wire.ts FilePreview."),
	},
	"POST /api/pi/sessions/:id/files/upload": {
		summary: "Upload a file into the project.",
		body: UploadBody,
		response: described<UploadResult>("src/chamber/files/files-wire.ts UploadResult."),
		status: 201,
	},
	"GET /api/pi/sessions/:id/terminals": {
		summary: "The session's terminals.",
		response: Type.Object({ terminals: Type.Array(Terminal) }),
	},
	"POST /api/pi/sessions/:id/terminals": {
		summary: "Open a terminal.",
		body: TerminalBodies.open,
		response: Type.Object({ terminal: Terminal }),
		status: 201,
	},
	"GET /api/pi/sessions/:id/terminals/stream": {
		summary: "Server-sent terminal output (src/chamber/terminal/terminal-wire.ts TerminalEventPayloads).",
		content: "text/event-stream",
	},
	"POST /api/pi/sessions/:id/terminals/:terminalId/input": {
		summary: "Keys for a terminal.",
		body: TerminalBodies.input,
		response: Ok,
	},
	"POST /api/pi/sessions/:id/terminals/:terminalId/resize": {
		summary: "Resize a terminal.",
		body: TerminalBodies.resize,
		response: Ok,
	},
	"DELETE /api/pi/sessions/:id/terminals/:terminalId": { summary: "Close a terminal.", response: Ok },
	"GET /api/pi/providers": {
		summary: "Model providers and their credentials' sources.",
		response: Type.Object({
			providers: Type.Array(described<ProviderView>("src/chamber/provider-wire.ts ProviderView.")),
			command: Type.String(),
		}),
	},
	"PUT /api/pi/providers/:provider/key": { summary: "Store a provider's API key.", response: ProviderKey },
	"DELETE /api/pi/providers/:provider/key": { summary: "Remove a provider's stored key.", response: ProviderKey },
	"POST /api/pi/providers": {
		summary: "Add a custom provider (models.json).",
		response: described<CustomProviderResult>("src/chamber/provider-wire.ts CustomProviderResult."),
		status: 201,
	},
} as const satisfies Record<string, Operation>;
