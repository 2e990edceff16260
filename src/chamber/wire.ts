/**
 * The chamber's wire, declared once: request bodies (TypeBox schemas that validate and type), the views the
 * API returns and the events the stream carries. The daemon and the web app both import this file; it must
 * stay free of Node and pi imports. `docs/chamber-api.md` is its prose companion.
 */
import type { StyledLine } from "./tui/styled-text.js";
import { type Static, Type } from "typebox";
import { OVERLAY_KEY_ACTIONS, type OverlayKeyAction, type OverlayView } from "../extensions/host/overlay-rows.js";
import { MCP_EXPOSURES, type McpExposure } from "../agent/mcp/shapes.js";
import type { ProjectMcpPreview } from "../extensions/trust-mcp-view.js";
import type { AppSurface, FormField, NormalizedCard } from "./ui/descriptors.js";
import { type CustomEventPayloads, CustomInputBody, type CustomView } from "./ui/custom-wire.js";

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

// ---- views ----------------------------------------------------------------------------------------

export interface SessionSummary {
	id: string;
	name?: string;
	cwd: string;
	createdAt: string;
	modifiedAt: string;
	messageCount: number;
	firstMessage?: string;
	live: boolean;
	streaming: boolean;
	/** Out of the default list (`GET /sessions?archived=1` lists these); the file is untouched. */
	archived?: boolean;
	/** Dialogs waiting for the user's answer (open sessions only; absent when none). */
	waiting?: number;
	/** A fork's original (pi's header `parentSession`), by id. */
	forkedFrom?: string;
	/** Another pier process writes this session's file (its lease): who, so the page can say it and offer a copy. */
	heldBy?: SessionHolder;
	/** An action is starting its runtime (extensions included) now; absent otherwise. */
	starting?: true;
	/** The git branch its folder is on (read from git's HEAD file; a detached HEAD: 7 hex digits); absent outside git. */
	branch?: string;
	/** Its folder is in a linked git worktree (e.g. one pier made for it: `GET /sessions/:id/worktree`). */
	worktree?: true;
}

/** The holder of a session file's lease (session-lease.ts), as a client sees it. */
export interface SessionHolder {
	/** What holds it: "pier run", "pier serve", … */
	holder: string;
	pid: number;
	host: string;
	/** Since when (ISO time). */
	since: string;
}

/** A deleted session waiting in the trash: what the Trash view lists and `POST /sessions/:id/restore` brings back. */
export interface TrashedSession {
	id: string;
	name?: string;
	firstMessage?: string;
	cwd: string;
	deletedAt: string;
	/** When the file is deleted for good (and Restore stops working). */
	purgeAt: string;
}

/** A file a user message carries (pi's `@file`): its text went to the model before the user's words. */
export interface AttachedFile {
	path: string;
	/** The text's size in UTF-8 bytes (text files only). */
	bytes?: number;
	/** A text file's content; an image's note from pi (empty when none). */
	text: string;
	image?: true;
}

export interface ToolCallView {
	id: string;
	name: string;
	args: unknown;
	/** An extension draws this tool (its own tool, or an override of pi's): ask for `tool:<id>`'s drawing. */
	drawn?: true;
}

export type TranscriptRow =
	/** text: the user's own words; files: the `@file` attachments pi put before them. */
	| { kind: "user"; id: string; text: string; files?: AttachedFile[]; images?: number; timestamp: number }
	/** pi's user bash (`!cmd`; `!!cmd` is kept out of the model's context). */
	| {
			kind: "bash";
			id: string;
			command: string;
			output: string;
			exitCode?: number;
			cancelled: boolean;
			truncated: boolean;
			excludeFromContext: boolean;
			timestamp: number;
	  }
	/** tokensAfter: pi's estimate of the context the compaction leaves (summary + kept messages). */
	| { kind: "compaction"; id: string; summary: string; tokensBefore: number; tokensAfter?: number; timestamp: number }
	| { kind: "branch_summary"; id: string; summary: string; timestamp: number }
	| {
			kind: "assistant";
			id: string;
			text: string;
			thinking?: string;
			toolCalls: ToolCallView[];
			model?: string;
			errorMessage?: string;
			timestamp: number;
	  }
	| {
			kind: "tool_result";
			id: string;
			toolCallId: string;
			toolName: string;
			text: string;
			isError: boolean;
			/** pi's edit tool's `details.diff`: `+N line`, `-N line`, ` N line` and `   ...` lines. */
			diff?: string;
			/** The call's drawing (asked for under `tool:<toolCallId>`) shows this result too. */
			drawn?: true;
			/** An MCP tool whose server declared an app for it: GET …/mcp-apps/<id> serves it (mcp-apps/routes.ts). */
			mcpApp?: McpAppRef;
			timestamp: number;
	  }
	| { kind: "card"; id: string; source: "entry" | "message"; card: NormalizedCard }
	| { kind: "app"; id: string; appId: string; title?: string; removed?: boolean }
	/** drawn: an extension's message or entry renderer draws it: ask for the row's drawing (GET …/drawings). */
	| { kind: "custom"; id: string; customType: string; content: unknown; drawn?: true }
	| { kind: "error"; id: string; message: string; source?: string; timestamp: number }
	/** A dialog that ended unanswered: the trace it leaves once it is gone from the screen. */
	| { kind: "dialog"; id: string; method: DialogMethod; title: string; reason: UnansweredReason; timestamp: number }
	/** Issue 33, Changes: a revert from the Changes view (a `pier.changes` custom message; the model sees it too). */
	| { kind: "changes"; id: string; text: string; timestamp: number };

export type WidgetPlacement = "aboveEditor" | "belowEditor";

export type DialogMethod = "select" | "confirm" | "input" | "editor" | "form";

export interface DialogRequest {
	requestId: string;
	method: DialogMethod;
	title: string;
	message?: string;
	options?: string[];
	placeholder?: string;
	prefill?: string;
	fields?: FormField[];
	timeoutMs?: number;
	/** Epoch milliseconds: lets a late-joining client show the right countdown. */
	expiresAt?: number;
}

export interface UiState {
	statuses: Record<string, string>;
	widgets: Record<string, { lines: string[]; placement: WidgetPlacement }>;
	panels: NormalizedCard[];
	apps: AppSurface[];
	dialogs: DialogRequest[];
	/** The extension overlay on screen (protocol overlays: one at a time), with its own status line. */
	overlay?: OpenOverlay;
	/** `ctx.ui.custom` components open now, oldest first (the page shows the newest). */
	customs?: CustomView[];
	title?: string;
	editorText?: string;
}

export interface OpenOverlay extends OverlayView {
	/** A callback's failure or a submit still in progress, the overlay's own line. */
	status?: string;
}

export interface CommandView {
	name: string;
	description?: string;
	source: string;
}

/** What pi's footer shows: tokens and cost over the session's answers, and the context fill. */
export interface SessionUsage {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** Dollars, as pi-ai prices the model. */
	cost: number;
	/** null: not known (right after a compaction, until the next answer; or nothing answered yet). */
	contextTokens: number | null;
	/** 0 when the model does not say. */
	contextWindow: number;
}

/** Messages pi holds for the running agent (steer: after the current tool calls; follow-up: after the run). */
export interface QueueView {
	steering: string[];
	followUp: string[];
}

/** One entry of the session's tree (`/tree`), depth-first in file order. */
export interface TreeNodeView {
	id: string;
	parentId: string | null;
	depth: number;
	/** user, assistant, tool_result, bash, compaction, branch_summary, custom, … */
	kind: string;
	text: string;
	label?: string;
	/** On the path from the root to the current leaf. */
	active: boolean;
	/** The first listed entry of a branch (its parent has other children): where a connector forks off. */
	start?: true;
	timestamp: string;
}

export interface SessionView {
	session: SessionSummary;
	usage: SessionUsage;
	queue: QueueView;
	rows: TranscriptRow[];
	ui: UiState;
	commands: CommandView[];
	model?: string;
	thinkingLevel: string;
	streaming: boolean;
	/** The last event sequence this view already includes: subscribe with `since=seq`. */
	seq: number;
	/** Rows before `rows[0]` left out because the client asked for the latest `rows=N` only. */
	olderRows?: number;
}

export interface ModelView {
	ref: string;
	name: string;
	provider: string;
	reasoning: boolean;
	/** The levels this model supports ("off" only without reasoning): all the thinking picker offers. */
	thinkingLevels: string[];
}

export interface TrustView {
	/** The canonical project directory (the key in `<agentDir>/trust.json`). */
	cwd: string;
	/** Whether the project has anything pier would load from it (older name: hasProjectExtensions). */
	needsDecision: boolean;
	hasProjectExtensions: boolean;
	/** What it has: `.pi/settings.json`, `.pi/extensions`, `AGENTS.md`, … */
	resources: string[];
	trusted: boolean;
	decided: boolean;
	/** How it was decided: `flag` (pier serve --approve/--no-approve), `store`, `undecided`, `nothing-to-trust`. */
	source: string;
	/** The directory whose stored decision applies (the project or an ancestor). */
	decidedFor?: string;
	/** The folder "Trust the parent folder" would trust. */
	parent?: string;
	/** The project's `.pi/mcp.json`: each server's name and command line or URL (never env or headers). */
	mcp?: ProjectMcpPreview;
}

// ---- events ---------------------------------------------------------------------------------------

export type DismissReason = "answered" | "timeout" | "cancelled" | "aborted" | "session-closed";
/** The ways a dialog ends without an answer that leave a transcript row (a closing session leaves none). */
export type UnansweredReason = "timeout" | "cancelled" | "aborted";

/** Every event name with its payload: the stream's single source of truth. */
export interface EventPayloads extends CustomEventPayloads {
	"session.snapshot": SessionView;
	"session.state": { streaming: boolean };
	"session.info": { session: SessionSummary };
	"session.model": { model?: string; thinkingLevel: string };
	"session.commands": { commands: CommandView[] };
	"session.usage": SessionUsage;
	"session.queue": QueueView;
	/** The session moved to another entry of its tree (`/tree`): its rows changed, fetch the view again. */
	"session.branch": { leafId: string | null };
	/** A user bash command (`!cmd`) runs; its row arrives when it is recorded (after the run if the agent streams). */
	"bash.start": { bashId: string; command: string; excludeFromContext: boolean };
	"bash.update": { bashId: string; text: string };
	"bash.end": { bashId: string; exitCode?: number; cancelled: boolean };
	/** An extension moved this chamber session to another pi session (new, fork, switch): follow `id`. */
	"session.replaced": { id: string };
	"sessions.changed": {
		reason: "created" | "renamed" | "deleted" | "updated";
		id: string;
		session?: SessionSummary;
	};
	"agent.start": Record<string, never>;
	"agent.end": Record<string, never>;
	"message.start": { draftId: string; role: "assistant" };
	"message.delta": { draftId: string; kind: "text" | "thinking"; delta: string };
	"message.end": { draftId: string };
	"tool.start": { toolCallId: string; toolName: string; args: unknown };
	"tool.update": { toolCallId: string; text: string };
	"tool.end": { toolCallId: string; toolName: string; text: string; isError: boolean };
	"transcript.row": { row: TranscriptRow; draftId?: string };
	/** These rows' drawings changed (a tool's result arrived, a protocol renderer answered): ask for them again. */
	"transcript.drawn": { ids: string[] };
	"extension.ui": { id: string; card: NormalizedCard } | { id: string; removed: true };
	"extension.app": { appId: string; app: AppSurface } | { appId: string; removed: true };
	"extension.status": { key: string; text?: string };
	"extension.widget": { key: string; lines?: string[]; placement?: WidgetPlacement };
	"extension.title": { title?: string };
	"extension.notify": { message: string; level: "info" | "warning" | "error" };
	"extension.editor": { text: string };
	"extension.dialog": DialogRequest;
	"extension.dialog.dismiss": { requestId: string; reason: DismissReason };
	/** The overlay opened or changed (whole: rows ≤ 100 × 200 characters); `draft` puts a failed submit back. */
	"extension.overlay": { overlay: OpenOverlay; draft?: string } | { closed: string };
	"extension.error": { message: string; source?: string };
	heartbeat: Record<string, never>;
}

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

export interface ApiErrorBody {
	error: { code: string; message: string };
}

/** A tool result's MCP App: the server that ran the tool and the `ui://` resource it declared. */
export interface McpAppRef {
	server: string;
	tool: string;
	resourceUri: string;
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
