/**
 * The chamber's wire, declared once: request bodies (TypeBox schemas that validate and type), the views the
 * API returns and the events the stream carries. The daemon and the web app both import this file; it must
 * stay free of Node and pi imports. `docs/chamber-api.md` is its prose companion.
 */
import type { StyledLine } from "./tui/styled-text.js";
import { type Static, Type } from "typebox";
import { OVERLAY_KEY_ACTIONS, type OverlayKeyAction } from "../extensions/host/overlay-rows.js";
import { MCP_EXPOSURES, type McpExposure } from "../agent/mcp/shapes.js";
import { CustomInputBody } from "./ui/custom-wire.js";
import type { EVENT_SCHEMAS } from "./wire-events.js";
import type { McpAppRef } from "./wire-views.js";

export type { CustomCloseReason, CustomEventPayloads, CustomInput, CustomView } from "./ui/custom-wire.js";
export { CUSTOM_LIMITS } from "./ui/custom-wire.js";

export type {
	McpExposure,
	McpListView,
	McpServerState,
	McpServerView,
	McpSignInAnswer,
	McpToolView,
} from "../agent/mcp/shapes.js";

export const EVENTS_VERSION = 1;

// ---- request bodies --------------------------------------------------------------------------------

const Text = Type.String({ maxLength: 200_000 });
const closed = { additionalProperties: false } as const;

export const Bodies = {
	createSession: Type.Object(
		{
			cwd: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
			name: Type.Optional(Type.String({ maxLength: 256 })),
			model: Type.Optional(Type.String({ minLength: 3, maxLength: 256 })),
			thinkingLevel: Type.Optional(Type.String({ maxLength: 32 })),
			approve: Type.Optional(Type.Boolean()),
			/** With `approve: true`: trust the project's parent folder instead (pi's "Trust parent folder"). */
			trustParent: Type.Optional(Type.Boolean()),
			/**
			 * Extension flags for this session (`{"plan": true, "preset": "fast"}`), as `pier --plan --preset fast`
			 * would pass them; over the daemon's own (`pier serve --plan`).
			 */
			flags: Type.Optional(
				Type.Record(
					Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$" }),
					Type.Union([Type.Boolean(), Type.String({ maxLength: 4096 })]),
					{ maxProperties: 32, additionalProperties: false },
				),
			),
		},
		closed,
	),
	rename: Type.Object({ name: Type.String({ minLength: 1, maxLength: 256 }) }, closed),
	archive: Type.Object({ archived: Type.Boolean() }, closed),
	text: Type.Object({ text: Text }, closed),
	/**
	 * A prompt: its text, images as pi's image content (base64; the 1 MiB body bound holds them all) and project
	 * files to attach as pi's `@file` arguments do (paths inside the session's directory).
	 */
	prompt: Type.Object(
		{
			text: Text,
			images: Type.Optional(
				Type.Array(
					Type.Object(
						{
							type: Type.Literal("image"),
							data: Type.String({ minLength: 1, maxLength: 1_000_000, pattern: "^[A-Za-z0-9+/]+=*$" }),
							mimeType: Type.Union([
								Type.Literal("image/png"),
								Type.Literal("image/jpeg"),
								Type.Literal("image/gif"),
								Type.Literal("image/webp"),
							]),
						},
						closed,
					),
					{ maxItems: 8 },
				),
			),
			files: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 32 })),
		},
		closed,
	),
	fork: Type.Object({ entryId: Type.String({ minLength: 1, maxLength: 64 }) }, closed),
	tree: Type.Object(
		{
			entryId: Type.String({ minLength: 1, maxLength: 64 }),
			/** pi's "Summarize the branch you leave" (a branch_summary entry at the target). */
			summarize: Type.Optional(Type.Boolean()),
			customInstructions: Type.Optional(Type.String({ maxLength: 2000 })),
		},
		closed,
	),
	command: Type.Object(
		{ command: Type.String({ maxLength: 256 }), args: Type.Optional(Type.String({ maxLength: 2000 })) },
		closed,
	),
	model: Type.Object({ model: Type.String({ minLength: 3, maxLength: 256 }) }, closed),
	/** Enable or disable an MCP server; `project`: as an override in the trusted project's .pi/mcp.json. */
	mcpEnable: Type.Object({ project: Type.Optional(Type.Boolean()) }, closed),
	/** An MCP App's `tools/call` (mcp-apps/routes.ts): a tool of the app's own server, with its arguments. */
	mcpAppCall: Type.Object(
		{
			name: Type.String({ minLength: 1, maxLength: 128 }),
			arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
		},
		closed,
	),
	mcpExposure: Type.Object(
		{ exposure: Type.Unsafe<McpExposure>(Type.Union(MCP_EXPOSURES.map((e) => Type.Literal(e)))) },
		closed,
	),
	empty: Type.Object({}, closed),
	thinking: Type.Object({ level: Type.String({ minLength: 1, maxLength: 32 }) }, closed),
	editor: Type.Object({ text: Text }, closed),
	answer: Type.Union([
		Type.Object({ value: Text }, closed),
		Type.Object({ confirmed: Type.Boolean() }, closed),
		Type.Object({ values: Type.Record(Type.String(), Type.Unknown()) }, closed),
		Type.Object({ cancelled: Type.Literal(true) }, closed),
	]),
	/** What the user did in the open extension overlay: its editor sent text, a key meant an action, or it closed. */
	overlay: Type.Union([
		Type.Object({ id: Type.String({ maxLength: 128 }), kind: Type.Literal("submit"), text: Text }, closed),
		Type.Object(
			{
				id: Type.String({ maxLength: 128 }),
				kind: Type.Literal("key"),
				action: Type.Unsafe<OverlayKeyAction>(Type.Union(OVERLAY_KEY_ACTIONS.map((a) => Type.Literal(a)))),
			},
			closed,
		),
		Type.Object({ id: Type.String({ maxLength: 128 }), kind: Type.Literal("close") }, closed),
	]),
	/** Keys typed into an open `ctx.ui.custom` component, and/or the page's terminal size. */
	customInput: CustomInputBody,
	trust: Type.Object(
		{
			cwd: Type.String({ minLength: 1, maxLength: 4096 }),
			/** null forgets the project's own decision. */
			trusted: Type.Union([Type.Boolean(), Type.Null()]),
			/** Trust the parent folder instead, dropping the project's own entry (only with trusted: true). */
			parent: Type.Optional(Type.Boolean()),
		},
		closed,
	),
	uiSettings: Type.Object(
		{
			triggers: Type.Array(
				Type.Object(
					{
						id: Type.String({ minLength: 1, maxLength: 64 }),
						command: Type.String({ maxLength: 128 }),
						args: Type.Optional(Type.String({ maxLength: 2000 })),
						label: Type.Optional(Type.String({ maxLength: 64 })),
						shortcut: Type.Optional(Type.String({ maxLength: 64 })),
					},
					closed,
				),
				{ maxItems: 32 },
			),
		},
		closed,
	),
} as const;

export type PromptBody = Static<typeof Bodies.prompt>;
export type CreateSessionBody = Static<typeof Bodies.createSession>;
export type DialogAnswer = Static<typeof Bodies.answer>;
export type OverlayInput = Static<typeof Bodies.overlay>;
export type UiSettings = Static<typeof Bodies.uiSettings>;
export type CommandTrigger = UiSettings["triggers"][number];

// ---- views (declared as schemas in wire-views.ts) -------------------------------------------------

export type {
	ApiErrorBody,
	AttachedFile,
	CommandView,
	DialogMethod,
	DialogRequest,
	DismissReason,
	McpAppRef,
	ModelView,
	OpenOverlay,
	QueueView,
	SessionHolder,
	SessionSummary,
	SessionUsage,
	SessionView,
	ToolCallView,
	TranscriptRow,
	TrashedSession,
	TreeNodeView,
	TrustView,
	UiState,
	UnansweredReason,
	WidgetPlacement,
} from "./wire-views.js";

// ---- events (declared as schemas in wire-events.ts) -----------------------------------------------

/** Every event name with its payload: the stream's single source of truth. */
export type EventPayloads = { [E in keyof typeof EVENT_SCHEMAS]: Static<(typeof EVENT_SCHEMAS)[E]> };

export type EventName = keyof EventPayloads;

export interface EventEnvelope<E extends EventName = EventName> {
	version: typeof EVENTS_VERSION;
	event: E;
	seq: number;
	sessionId: string;
	payload: EventPayloads[E];
}

/**
 * A row drawn by pi's component for its renderer (GET /api/pi/sessions/:id/drawings): its lines; or why the row
 * shows its raw data (`extension`: whose renderer failed or was too slow); or `pending` while a protocol
 * extension's renderer has not answered yet (a `transcript.drawn` event follows).
 */
export type RowDrawing = { lines: StyledLine[] } | { error: string; extension?: string } | { pending: true };

export interface DrawingsAnswer {
	/** The column bucket the rows were drawn at (the reported width, snapped). */
	width: number;
	expanded: boolean;
	drawings: Record<string, RowDrawing>;
}

/** GET /api/pi/sessions/:id/mcp-apps/:entryId: an MCP App, checked and ready for the app frame. */
export interface McpAppView extends McpAppRef {
	/** The app's HTML document with pier's policy for it in a `<meta>` (csp.ts). */
	document: string;
	/** The declared CSP domains pier granted (none today) and those it refused. */
	csp: { granted: McpCspDomains; refused: McpCspDomains };
	prefersBorder?: boolean;
	/** pier's version, for `ui/initialize`'s `hostInfo`. */
	hostVersion: string;
	/** The arguments the tool was called with (`ui/notifications/tool-input`). */
	toolInput: Record<string, unknown>;
	/** The tool's result as a `CallToolResult` (`ui/notifications/tool-result`). */
	toolResult: { content: unknown[]; structuredContent?: unknown; isError?: boolean };
}

export type McpCspDomains = Record<"connectDomains" | "resourceDomains" | "frameDomains" | "baseUriDomains", string[]>;
