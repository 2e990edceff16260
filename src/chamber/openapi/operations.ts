/**
 * What the OpenAPI document says about each route beyond its request body: a summary, its query parameters and
 * the schema of its success answer. Request bodies are not declared here for routes that validate them: the
 * document takes the schema that route's `jsonBody` checks (json-body.ts). `body` here types the client; where
 * the route has a `jsonBody`, test/chamber/openapi.test.ts requires it to be that very schema.
 *
 * Every route the server registers under /api needs an entry (keyed `METHOD /hono/path/:param`), and every entry
 * a route: the same test compares this table with the real app's routes.
 *
 * Response shapes declared as TypeBox schemas (wire-views.ts) are published whole; shapes a part declares only as a
 * TypeScript type are `described<T>`: the client gets the exact type, the document an open object.
 */
import { type TSchema, Type } from "typebox";
import {
	AuthStatusResponse,
	CreatedDeviceTokenResponse,
	CredentialListResponse,
	DeviceTokenListResponse,
	PairingLinkResponse,
	RevokedResponse,
	SignedInResponse,
} from "../auth/auth-wire.js";
import { type ChangesView, ChangesBodies, type RevertResult } from "../changes/wire.js";
import type { ExtensionListView } from "../extension-list.js";
import { type FileListing, type FilePreview, UploadBody, type UploadResult } from "../files/files-wire.js";
import type { CustomProviderResult, ProviderView } from "../provider-wire.js";
import type { PushDeviceView } from "../push/notice.js";
import { TerminalBodies, type TerminalView } from "../terminal/terminal-wire.js";
import { Bodies, type DrawingsAnswer, type McpAppView, type McpListView, type McpServerView } from "../wire.js";
import {
	described,
	ModelView,
	QueueView,
	SessionSummary,
	SessionView,
	TranscriptRow,
	TrashedSession,
	TreeNodeView,
	TrustView,
} from "../wire-views.js";
import {
	type WorktreeMerged,
	type WorktreeRemoved,
	type WorktreeStatus,
	WorktreeBodies,
	type WorktreeView,
} from "../worktrees/wire.js";

export interface Operation {
	summary: string;
	/** Query parameters by name (all strings on the wire); optional unless listed in `required`. */
	query?: Record<string, TSchema>;
	requiredQuery?: readonly string[];
	/** The request body, for the client's types; a route with `jsonBody` must name its schema here or nothing. */
	body?: TSchema;
	/** The success answer's JSON; absent for a non-JSON answer (`content`). */
	response?: TSchema;
	/** The success status (200 unless said). */
	status?: 200 | 201 | 202;
	/** A non-JSON success answer: its media type. */
	content?: "text/event-stream" | "text/html" | "text/css";
	/** Answered without a credential. */
	public?: true;
	/** To be removed in the next API version (docs/chamber-api.md, "Versions and deprecation"). */
	deprecated?: true;
}

const Ok = Type.Object({ ok: Type.Literal(true) });
const OneSession = Type.Object({ session: SessionSummary });
const Sessions = Type.Object({ sessions: Type.Array(SessionSummary) });
const SessionQuery = { session: Type.String({ description: "A session id." }) };
const Rows = Type.String({ pattern: "^[0-9]+$", description: "A whole number from 1 to 100000." });
const ProviderKey = Type.Object({ provider: Type.String(), credentials: Type.String() });
const McpServer = Type.Object({ server: described<McpServerView>("An MCP server as pi's /mcp shows it.") });
const PushDevice = described<PushDeviceView>("This device's notification settings (src/chamber/push/notice.ts).");
const Terminal = described<TerminalView>("A terminal of the session (src/chamber/terminal/terminal-wire.ts).");

export const OPERATIONS = {
	// ---- the document itself ----
	"GET /api/openapi.json": {
		summary: "This OpenAPI document (no credential needed: it describes routes, never data or secrets).",
		response: Type.Object({}, { additionalProperties: true, description: "An OpenAPI 3.1 document." }),
		public: true,
	},

	// ---- sign-in and credentials (auth/http.ts, auth/credential-routes.ts) ----
	"GET /api/auth/status": {
		summary: "Whether this request is signed in, and how a new sign-in link is made.",
		response: AuthStatusResponse,
		public: true,
	},
	"POST /api/auth/login": {
		summary: "Sign in with the UI password: a session cookie and the browser key.",
		body: Type.Object({ password: Type.String() }),
		response: SignedInResponse,
		public: true,
	},
	"POST /api/auth/pair": {
		summary: "Sign in with a one-use pairing token.",
		body: Type.Object({ token: Type.String() }),
		response: SignedInResponse,
		public: true,
	},
	"POST /api/auth/logout": { summary: "Sign this browser out.", body: Type.Object({}), response: Ok },
	"POST /api/auth/pairing-links": {
		summary: "A one-use pairing link for another device.",
		body: Type.Object({ ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })) }),
		response: PairingLinkResponse,
	},
	"GET /api/auth/tokens": {
		summary: "The device tokens.",
		response: DeviceTokenListResponse,
	},
	"POST /api/auth/tokens": {
		summary: "A new device token (shown once), for `Authorization: Bearer`.",
		body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
		response: CreatedDeviceTokenResponse,
	},
	"DELETE /api/auth/tokens/:id": { summary: "Revoke a device token and what it minted.", response: RevokedResponse },
	"GET /api/auth/credentials": {
		summary: "Every credential: device tokens, signed-in browsers, unused pairing links.",
		response: CredentialListResponse,
	},
	"DELETE /api/auth/credentials/:id": { summary: "Revoke a credential and what it minted.", response: RevokedResponse },

	// ---- notifications (push/routes.ts) ----
	"GET /api/push/vapid-key": {
		summary: "The daemon's VAPID public key.",
		response: Type.Object({ publicKey: Type.String() }),
	},
	"GET /api/push/settings": { summary: "This device's notification settings.", response: PushDevice },
	"PUT /api/push/settings": { summary: "Set this device's notification settings.", response: PushDevice },
	"POST /api/push/subscribe": { summary: "Subscribe this device to push.", response: PushDevice, status: 201 },
	"POST /api/push/unsubscribe": { summary: "Unsubscribe this device.", response: PushDevice },

	// ---- the event stream ----
	"GET /api/pi/events": {
		summary:
			"Server-sent events: every event's `data` is an EventEnvelope (see components.schemas.EventEnvelope). " +
			"Without `session`: the session list's events; with it: that session's, from a snapshot.",
		query: { session: SessionQuery.session, rows: Rows, since: Type.String({ pattern: "^[0-9]+$" }) },
		content: "text/event-stream",
	},

	// ---- sessions (routes.ts) ----
	"GET /api/pi/sessions": {
		summary: "The sessions (newest first).",
		query: {
			archived: Type.Literal("1", { description: "List the archived ones instead." }),
			q: Type.String({ maxLength: 256, description: "Search names and text." }),
		},
		response: Sessions,
	},
	"POST /api/pi/sessions": {
		summary: "Create a session.",
		body: Bodies.createSession,
		response: OneSession,
		status: 201,
	},
	"GET /api/pi/sessions/:id": {
		summary: "A session's view: its rows, UI state, usage and the event sequence it includes.",
		query: { rows: Rows },
		response: SessionView,
	},
	"GET /api/pi/sessions/:id/rows": {
		summary: "Older transcript rows, before a row id.",
		query: { limit: Rows, before: Type.String() },
		response: Type.Object({ rows: Type.Array(TranscriptRow), olderRows: Type.Number() }),
	},
	"POST /api/pi/sessions/:id/open": { summary: "Start the session's runtime.", response: OneSession },
	"POST /api/pi/sessions/:id/copy": {
		summary: "Copy the session into a new one.",
		response: OneSession,
		status: 201,
	},
	"PATCH /api/pi/sessions/:id": { summary: "Rename the session.", body: Bodies.rename, response: OneSession },
	"DELETE /api/pi/sessions/:id": {
		summary: "Move the session to the trash.",
		response: Type.Object({ ok: Type.Literal(true), undoUntil: Type.Optional(Type.Number()) }),
	},
	"GET /api/pi/trash": {
		summary: "Deleted sessions waiting in the trash.",
		response: Type.Object({ sessions: Type.Array(TrashedSession) }),
	},
	"POST /api/pi/sessions/:id/restore": { summary: "Bring a session back from the trash.", response: OneSession },
	"POST /api/pi/sessions/:id/archive": {
		summary: "Archive or unarchive a session.",
		body: Bodies.archive,
		response: OneSession,
	},
	"POST /api/pi/sessions/:id/prompt": {
		summary: "Send a prompt (text, images, @files).",
		body: Bodies.prompt,
		response: Ok,
		status: 202,
	},
	"GET /api/pi/sessions/:id/files": {
		summary: "Project paths matching `q` (pi's @ picker).",
		query: { q: Type.String({ maxLength: 256 }) },
		response: Type.Object({ files: Type.Array(Type.String()) }),
	},
	"GET /api/pi/sessions/:id/tree": {
		summary: "The session's tree (pi's /tree).",
		response: Type.Object({ nodes: Type.Array(TreeNodeView) }),
	},
	"GET /api/pi/sessions/:id/images/:entryId/:n": {
		summary: "A user message's image as base64.",
		response: Type.Object({ mimeType: Type.String(), data: Type.String() }),
	},
	"POST /api/pi/sessions/:id/tree": { summary: "Move to another entry of the tree.", body: Bodies.tree, response: Ok },
	"POST /api/pi/sessions/:id/fork": {
		summary: "Fork the session at an entry.",
		body: Bodies.fork,
		response: Type.Object({ id: Type.String() }),
		status: 201,
	},
	"GET /api/pi/sessions/:id/export": { summary: "pi's HTML export, as a download.", content: "text/html" },
	"DELETE /api/pi/sessions/:id/queue": { summary: "Clear the queued messages.", response: QueueView },
	"POST /api/pi/sessions/:id/steer": {
		summary: "A steering message for the running agent.",
		body: Bodies.text,
		response: Ok,
		status: 202,
	},
	"POST /api/pi/sessions/:id/follow-up": {
		summary: "A follow-up message, after the run.",
		body: Bodies.text,
		response: Ok,
		status: 202,
	},
	"POST /api/pi/sessions/:id/abort": { summary: "Abort the run.", response: Ok },
	"POST /api/pi/sessions/:id/command": {
		summary: "Run a slash command.",
		body: Bodies.command,
		response: Ok,
		status: 202,
	},
	"POST /api/pi/sessions/:id/apps/:appId/command": {
		summary: "An app surface's command.",
		body: Bodies.command,
		response: Ok,
		status: 202,
	},
	"POST /api/pi/sessions/:id/cards/:entryId/command": {
		summary: "A transcript card's button.",
		body: Bodies.command,
		response: Ok,
		status: 202,
	},
	"POST /api/pi/sessions/:id/panels/:panelId/command": {
		summary: "A panel card's button.",
		body: Bodies.command,
		response: Ok,
		status: 202,
	},
	"PUT /api/pi/sessions/:id/model": {
		summary: "Set the model.",
		body: Bodies.model,
		response: Type.Object({ model: Type.String() }),
	},
	"PUT /api/pi/sessions/:id/thinking": {
		summary: "Set the thinking level.",
		body: Bodies.thinking,
		response: Type.Object({ thinkingLevel: Type.String() }),
	},
	"PUT /api/pi/sessions/:id/editor": {
		summary: "Mirror the composer's text to the extensions (`live: false`: the session does not run).",
		body: Bodies.editor,
		response: Type.Object({ ok: Type.Literal(true), live: Type.Optional(Type.Literal(false)) }),
	},
	"POST /api/pi/sessions/:id/dialogs/:requestId": {
		summary: "Answer an extension's dialog.",
		body: Bodies.answer,
		response: Ok,
	},
	"POST /api/pi/sessions/:id/overlay": { summary: "Input to the open overlay.", body: Bodies.overlay, response: Ok },
	"POST /api/pi/sessions/:id/ui/custom/:customId/input": {
		summary: "Keys and size for an open ctx.ui.custom component.",
		body: Bodies.customInput,
		response: Ok,
	},
	"POST /api/pi/sessions/:id/ui/custom/:customId/cancel": {
		summary: "Cancel an open ctx.ui.custom component.",
		body: Bodies.empty,
		response: Ok,
	},
	"GET /api/pi/models": {
		summary: "The models (with `session`: also those its extensions provide).",
		query: SessionQuery,
		response: Type.Object({ models: Type.Array(ModelView) }),
	},
	"GET /api/pi/extensions": {
		summary: "A running session's extensions.",
		query: SessionQuery,
		requiredQuery: ["session"],
		response: described<ExtensionListView>("The extensions, by kind (src/chamber/extension-list.ts)."),
	},
	"GET /api/pi/projects/trust": {
		summary: "A project's trust.",
		query: { cwd: Type.String() },
		response: TrustView,
	},
	"PUT /api/pi/projects/trust": { summary: "Decide a project's trust.", body: Bodies.trust, response: TrustView },
	"GET /api/pi/ui-settings": { summary: "The chamber's UI settings.", response: Bodies.uiSettings },
	"PUT /api/pi/ui-settings": {
		summary: "Save the chamber's UI settings.",
		body: Bodies.uiSettings,
		response: Bodies.uiSettings,
	},

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

export type OperationKey = keyof typeof OPERATIONS;
