/**
 * The views the API answers with, declared once as TypeBox schemas: wire.ts exports their types
 * (`Static<typeof …>`), and the OpenAPI document (openapi/) publishes the schemas themselves. Shapes owned by
 * another module (cards, app surfaces, styled lines, overlays) keep their TypeScript type and are published as
 * an open object with a description, so a client gets the exact type and the document stays honest.
 * Like wire.ts, this file must stay free of Node and pi imports: the web app compiles it.
 */
import { type Static, type TSchema, Type } from "typebox";
import type { OverlayView } from "../extensions/host/overlay-rows.js";
import type { ProjectMcpPreview } from "../extensions/trust-mcp-view.js";
import type { CustomView } from "./ui/custom-wire.js";
import type { AppSurface, FormField, NormalizedCard } from "./ui/descriptors.js";

/** A shape another module declares: its TS type for clients, an open object (described) in the document. */
export function described<T>(description: string) {
	return Type.Unsafe<T>({ type: "object", description });
}

const opt = <S extends TSchema>(s: S) => Type.Optional(s);
/** One of these strings (the union keeps each literal in its static type). */
const lit = <V extends string>(values: readonly V[]) => Type.Unsafe<V>(Type.Union(values.map((v) => Type.Literal(v))));

export const SessionHolder = Type.Object({
	holder: Type.String({ description: 'What holds it: "pier run", "pier serve", …' }),
	pid: Type.Number(),
	host: Type.String(),
	since: Type.String({ description: "Since when (ISO time)." }),
});

export const SessionSummary = Type.Object({
	id: Type.String(),
	name: opt(Type.String()),
	cwd: Type.String(),
	createdAt: Type.String(),
	modifiedAt: Type.String(),
	messageCount: Type.Number(),
	firstMessage: opt(Type.String()),
	live: Type.Boolean(),
	streaming: Type.Boolean(),
	archived: opt(Type.Boolean({ description: "Out of the default list (`GET /sessions?archived=1` lists these)." })),
	waiting: opt(Type.Number({ description: "Dialogs waiting for the user's answer (open sessions only)." })),
	forkedFrom: opt(Type.String({ description: "A fork's original, by id." })),
	heldBy: opt(SessionHolder),
	starting: opt(Type.Literal(true, { description: "An action is starting its runtime now." })),
	branch: opt(Type.String({ description: "The git branch of its folder; a detached HEAD: 7 hex digits." })),
	worktree: opt(Type.Literal(true, { description: "Its folder is a linked git worktree." })),
});

export const TrashedSession = Type.Object({
	id: Type.String(),
	name: opt(Type.String()),
	firstMessage: opt(Type.String()),
	cwd: Type.String(),
	deletedAt: Type.String(),
	purgeAt: Type.String({ description: "When the file is deleted for good (and Restore stops working)." }),
});

export const AttachedFile = Type.Object({
	path: Type.String(),
	bytes: opt(Type.Number({ description: "The text's size in UTF-8 bytes (text files only)." })),
	text: Type.String(),
	image: opt(Type.Literal(true)),
});

export const ToolCallView = Type.Object({
	id: Type.String(),
	name: Type.String(),
	args: Type.Unknown(),
	drawn: opt(Type.Literal(true, { description: "An extension draws this tool: ask for `tool:<id>`'s drawing." })),
});

export const McpAppRef = Type.Object({ server: Type.String(), tool: Type.String(), resourceUri: Type.String() });

export const DIALOG_METHODS = ["select", "confirm", "input", "editor", "form"] as const;
export const DialogMethod = lit(DIALOG_METHODS);
export const UnansweredReason = lit(["timeout", "cancelled", "aborted"] as const);
export const DismissReason = lit(["answered", "timeout", "cancelled", "aborted", "session-closed"] as const);
export const WidgetPlacement = lit(["aboveEditor", "belowEditor"] as const);

const Card = described<NormalizedCard>("A normalized extension card (src/chamber/ui/descriptors.ts).");
const App = described<AppSurface>("An extension's app surface (src/chamber/ui/descriptors.ts).");

export const TranscriptRow = Type.Union([
	Type.Object({
		kind: Type.Literal("user"),
		id: Type.String(),
		text: Type.String(),
		files: opt(Type.Array(AttachedFile)),
		images: opt(Type.Number()),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("bash"),
		id: Type.String(),
		command: Type.String(),
		output: Type.String(),
		exitCode: opt(Type.Number()),
		cancelled: Type.Boolean(),
		truncated: Type.Boolean(),
		excludeFromContext: Type.Boolean(),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("compaction"),
		id: Type.String(),
		summary: Type.String(),
		tokensBefore: Type.Number(),
		tokensAfter: opt(Type.Number()),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("branch_summary"),
		id: Type.String(),
		summary: Type.String(),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("assistant"),
		id: Type.String(),
		text: Type.String(),
		thinking: opt(Type.String()),
		toolCalls: Type.Array(ToolCallView),
		model: opt(Type.String()),
		errorMessage: opt(Type.String()),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("tool_result"),
		id: Type.String(),
		toolCallId: Type.String(),
		toolName: Type.String(),
		text: Type.String(),
		isError: Type.Boolean(),
		diff: opt(Type.String({ description: "pi's edit tool's `details.diff`." })),
		drawn: opt(Type.Literal(true)),
		mcpApp: opt(McpAppRef),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("card"),
		id: Type.String(),
		source: lit(["entry", "message"] as const),
		card: Card,
	}),
	Type.Object({
		kind: Type.Literal("app"),
		id: Type.String(),
		appId: Type.String(),
		title: opt(Type.String()),
		removed: opt(Type.Boolean()),
	}),
	Type.Object({
		kind: Type.Literal("custom"),
		id: Type.String(),
		customType: Type.String(),
		content: Type.Unknown(),
		drawn: opt(Type.Literal(true)),
	}),
	Type.Object({
		kind: Type.Literal("error"),
		id: Type.String(),
		message: Type.String(),
		source: opt(Type.String()),
		timestamp: Type.Number(),
	}),
	Type.Object({
		kind: Type.Literal("dialog"),
		id: Type.String(),
		method: DialogMethod,
		title: Type.String(),
		reason: UnansweredReason,
		timestamp: Type.Number(),
	}),
	Type.Object({ kind: Type.Literal("changes"), id: Type.String(), text: Type.String(), timestamp: Type.Number() }),
]);

export const DialogRequest = Type.Object({
	requestId: Type.String(),
	method: DialogMethod,
	title: Type.String(),
	message: opt(Type.String()),
	options: opt(Type.Array(Type.String())),
	placeholder: opt(Type.String()),
	prefill: opt(Type.String()),
	fields: opt(Type.Array(described<FormField>("A form field (src/chamber/ui/descriptors.ts)."))),
	timeoutMs: opt(Type.Number()),
	expiresAt: opt(Type.Number({ description: "Epoch milliseconds: a late-joining client shows the right countdown." })),
});

export interface OpenOverlay extends OverlayView {
	/** A callback's failure or a submit still in progress, the overlay's own line. */
	status?: string;
}
const Overlay = described<OpenOverlay>("The extension overlay on screen (src/extensions/host/overlay-rows.ts).");

export const UiState = Type.Object({
	statuses: Type.Record(Type.String(), Type.String()),
	widgets: Type.Record(Type.String(), Type.Object({ lines: Type.Array(Type.String()), placement: WidgetPlacement })),
	panels: Type.Array(Card),
	apps: Type.Array(App),
	dialogs: Type.Array(DialogRequest),
	overlay: opt(Overlay),
	customs: opt(Type.Array(described<CustomView>("An open `ctx.ui.custom` component (ui/custom-wire.ts)."))),
	title: opt(Type.String()),
	editorText: opt(Type.String()),
});

export const CommandView = Type.Object({ name: Type.String(), description: opt(Type.String()), source: Type.String() });

export const SessionUsage = Type.Object({
	input: Type.Number(),
	output: Type.Number(),
	cacheRead: Type.Number(),
	cacheWrite: Type.Number(),
	cost: Type.Number({ description: "Dollars, as pi-ai prices the model." }),
	contextTokens: Type.Union([Type.Number(), Type.Null()], { description: "null: not known." }),
	contextWindow: Type.Number({ description: "0 when the model does not say." }),
});

export const QueueView = Type.Object({ steering: Type.Array(Type.String()), followUp: Type.Array(Type.String()) });

export const TreeNodeView = Type.Object({
	id: Type.String(),
	parentId: Type.Union([Type.String(), Type.Null()]),
	depth: Type.Number(),
	kind: Type.String(),
	text: Type.String(),
	label: opt(Type.String()),
	active: Type.Boolean({ description: "On the path from the root to the current leaf." }),
	start: opt(Type.Literal(true)),
	timestamp: Type.String(),
});

export const SessionView = Type.Object({
	session: SessionSummary,
	usage: SessionUsage,
	queue: QueueView,
	rows: Type.Array(TranscriptRow),
	ui: UiState,
	commands: Type.Array(CommandView),
	model: opt(Type.String()),
	thinkingLevel: Type.String(),
	streaming: Type.Boolean(),
	seq: Type.Number({ description: "The last event sequence this view includes: subscribe with `since=seq`." }),
	olderRows: opt(Type.Number({ description: "Rows before `rows[0]` left out (`rows=N`)." })),
});

export const ModelView = Type.Object({
	ref: Type.String(),
	name: Type.String(),
	provider: Type.String(),
	reasoning: Type.Boolean(),
	thinkingLevels: Type.Array(Type.String()),
});

export const TrustView = Type.Object({
	cwd: Type.String(),
	needsDecision: Type.Boolean(),
	hasProjectExtensions: Type.Boolean(),
	resources: Type.Array(Type.String()),
	trusted: Type.Boolean(),
	decided: Type.Boolean(),
	source: Type.String(),
	decidedFor: opt(Type.String()),
	parent: opt(Type.String()),
	mcp: opt(described<ProjectMcpPreview>("The project's .pi/mcp.json servers (names, commands, URLs).")),
});

export const ApiErrorBody = Type.Object(
	{ error: Type.Object({ code: Type.String(), message: Type.String() }) },
	{ description: "Every failure of the API: a code to branch on and a sentence for a person." },
);

export type SessionHolder = Static<typeof SessionHolder>;
export type SessionSummary = Static<typeof SessionSummary>;
export type TrashedSession = Static<typeof TrashedSession>;
export type AttachedFile = Static<typeof AttachedFile>;
export type ToolCallView = Static<typeof ToolCallView>;
export type McpAppRef = Static<typeof McpAppRef>;
export type DialogMethod = Static<typeof DialogMethod>;
export type UnansweredReason = Static<typeof UnansweredReason>;
export type DismissReason = Static<typeof DismissReason>;
export type WidgetPlacement = Static<typeof WidgetPlacement>;
export type TranscriptRow = Static<typeof TranscriptRow>;
export type DialogRequest = Static<typeof DialogRequest>;
export type UiState = Static<typeof UiState>;
export type CommandView = Static<typeof CommandView>;
export type SessionUsage = Static<typeof SessionUsage>;
export type QueueView = Static<typeof QueueView>;
export type TreeNodeView = Static<typeof TreeNodeView>;
export type SessionView = Static<typeof SessionView>;
export type ModelView = Static<typeof ModelView>;
export type TrustView = Static<typeof TrustView>;
export type ApiErrorBody = Static<typeof ApiErrorBody>;
