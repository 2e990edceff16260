/**
 * Types of the pier process-extension kit for Node (kit/node/index.mjs).
 *
 * Names follow pi's ExtensionAPI (`@earendil-works/pi-coding-agent`); the
 * differences come from running in another process: everything that talks to
 * the session returns a Promise of the host's answer, and only what protocol v1
 * carries is here (no TUI components or renderers; providers answer with a
 * whole assistant message).
 */

export declare const PROTOCOL_VERSION: 1;
/** Default frame limit in bytes, excluding the LF (the host's default). */
export declare const DEFAULT_MAX_FRAME_BYTES: number;

// ── manifest ─────────────────────────────────────────────────────────────────

export type Capability =
	| "commands"
	| "tools"
	| "event_hooks"
	| "message_renderers"
	| "provider_metadata"
	| "provider"
	| "session_actions"
	| "ui"
	| "overlays";

export type UiCapability =
	| "select"
	| "confirm"
	| "input"
	| "editor"
	| "notify"
	| "status"
	| "widget"
	| "title"
	| "set_editor_text"
	| "editor_text"
	| "working"
	| "hidden_thinking"
	| "theme"
	| "tools_expanded"
	| "overlay";

/**
 * What the extension declares in its `hello`: a subset of what its
 * pi-extension.json grants. `id` defaults to `PI_EXTENSION_ID`, `name` to the
 * id, `version` to "0.0.0".
 */
export interface KitManifest {
	id?: string;
	name?: string;
	version?: string;
	capabilities?: Capability[];
	uiCapabilities?: UiCapability[];
}

export interface RunOptions {
	/** Frame limit for both directions; must match the host's (default 1 MiB). */
	maxFrameBytes?: number;
}

/**
 * Serves the extension over stdin/stdout until the host shuts it down or
 * stdin ends. `factory` runs on the host's `load` request; it may register
 * things (synchronously or before its promise settles) but make no runtime
 * requests. Redirects `console.log`/`process.stdout` to stderr and logs
 * unhandled rejections to stderr instead of exiting.
 */
export declare function runExtension(
	manifest: KitManifest,
	factory: (pi: ExtensionAPI) => void | Promise<void>,
	options?: RunOptions,
): void;

// ── errors ───────────────────────────────────────────────────────────────────

/** A UI or action request the host answered with a failure. */
export declare class ExtensionRequestError extends Error {
	constructor(code: string, message: string);
	/** The protocol error code: `permission_denied`, `ui_unavailable`, `ui_request_failed`, `action_failed`, `cancelled`, … */
	readonly code: string;
}

/** An outbound frame over the limit; nothing was sent. */
export declare class FrameTooLargeError extends Error {
	constructor(bytes: number, maxFrameBytes: number);
	readonly code: "frame_too_large";
}

// ── framing helpers (used by the kit; exported for tests and other tools) ────

/** Compact JSON + LF; throws FrameTooLargeError over the limit. */
export declare function encodeFrame(frame: unknown, maxFrameBytes?: number): string;

/** Splits bytes on LF only (never on U+2028 or CR); throws when a line passes the limit. */
export declare class LineSplitter {
	constructor(maxFrameBytes: number, onLine: (line: Uint8Array) => void);
	push(chunk: Uint8Array): void;
}

// ── content and results ──────────────────────────────────────────────────────

export interface TextContent {
	type: "text";
	text: string;
	textSignature?: string;
}
export interface ImageContent {
	type: "image";
	data: string;
	mimeType: string;
}
export type ContentBlock = TextContent | ImageContent | { type: string; [key: string]: unknown };

/** A tool's result (and a tool update's value). */
export interface AgentToolResult<TDetails = unknown> {
	content: ContentBlock[];
	details?: TDetails;
	terminate?: boolean;
	[key: string]: unknown;
}

/** A pi-ai Model, as the host sends it (headers are always null). */
export interface Model {
	id: string;
	name: string;
	api: string;
	provider: string;
	baseUrl: string;
	contextWindow: number;
	maxTokens: number;
	reasoning?: boolean;
	[key: string]: unknown;
}

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";
export type Mode = "tui" | "rpc" | "json" | "print";
export type Delivery = "steer" | "followUp" | "nextTurn";

export interface ContextUsage {
	tokens: number | null;
	contextWindow: number;
	percent: number | null;
}

/** The invocation's context snapshot as sent by the host (docs/protocol-v1.md §6). */
export interface ContextSnapshot {
	sessionName?: string;
	sessionId?: string;
	sessionFile?: string;
	isIdle: boolean;
	projectTrusted: boolean;
	hasPendingMessages: boolean;
	contextUsage?: { tokens?: number; contextWindow: number; percent?: number };
	activeTools?: string[];
	allTools?: string[];
	commands?: Array<{ name: string; description?: string }>;
	flagValues?: Record<string, unknown>;
	systemPrompt: string;
	model?: Model;
	thinkingLevel: ThinkingLevel;
}

// ── UI ───────────────────────────────────────────────────────────────────────

export interface DialogOptions {
	/** Aborting dismisses the dialog (the promise rejects with code `cancelled`). */
	signal?: AbortSignal;
	/** Sent as the request's `timeoutMs` (the host caps it at 10 minutes). */
	timeout?: number;
}

export type SelectOption = string | { value: string; label?: string; description?: string };

/** pier addition: one field of PiChamber's `ctx.ui.form`. Values come back as text (checkbox: "true"/"false"). */
export interface FormField {
	/** The key of this field's value in the answer. */
	id: string;
	label: string;
	/** Default "text". */
	type?: "text" | "textarea" | "number" | "select" | "checkbox";
	required?: boolean;
	placeholder?: string;
	/** A select's choices (at most 20). */
	options?: string[];
	initial?: string | number | boolean;
	/** Bounds of a number field. */
	min?: number;
	max?: number;
}

/**
 * `ctx.ui`. Each call is one UI request; the promise rejects with an
 * ExtensionRequestError when the host refuses it (e.g. `permission_denied` for
 * a UI capability not granted). Without the `ui` capability in the manifest a
 * call rejects at once, sending nothing (rpi: "UI action requires the ui
 * capability"). Not
 * awaiting is fine: a failure of an unawaited call is dropped, as pi's void
 * methods would.
 */
export interface ExtensionUIContext {
	/** The chosen option's value; undefined when cancelled. */
	select(title: string, options: SelectOption[], opts?: DialogOptions): Promise<string | undefined>;
	/** false when cancelled. */
	confirm(title: string, message: string, opts?: DialogOptions): Promise<boolean>;
	input(title: string, placeholder?: string, opts?: DialogOptions): Promise<string | undefined>;
	editor(title: string, prefill?: string, opts?: DialogOptions): Promise<string | undefined>;
	/**
	 * pier addition: PiChamber's form dialog (at most 12 fields), answered with each field's value by id;
	 * undefined when cancelled. Only the chamber has forms: elsewhere the promise rejects with
	 * `ui_request_failed`, and a malformed form is refused the same way with the reason. Needs the `input` UI
	 * capability.
	 */
	form(title: string, fields: FormField[], opts?: DialogOptions): Promise<Record<string, string> | undefined>;
	notify(message: string, level?: "info" | "warning" | "error"): Promise<void>;
	/** undefined text clears the entry. */
	setStatus(key: string, text?: string): Promise<void>;
	/** undefined lines clear the widget; placement defaults to above the editor. */
	setWidget(
		key: string,
		lines: string[] | undefined,
		options?: { placement?: "aboveEditor" | "belowEditor" | "above_editor" | "below_editor" },
	): Promise<void>;
	setTitle(title: string): Promise<void>;
	setEditorText(text: string): Promise<void>;
	getEditorText(): Promise<string>;
	pasteToEditor(text: string): Promise<void>;
	setWorkingMessage(message?: string): Promise<void>;
	setWorkingVisible(visible: boolean): Promise<void>;
	setWorkingIndicator(options?: { frames?: string[]; intervalMs?: number }): Promise<void>;
	setHiddenThinkingLabel(label?: string): Promise<void>;
	getAllThemes(): Promise<Array<{ name: string; path: string | undefined }>>;
	getTheme(name: string): Promise<{ name: string; path?: string } | undefined>;
	setTheme(theme: string | { name: string }): Promise<{ success: boolean; error?: string }>;
	getToolsExpanded(): Promise<boolean>;
	setToolsExpanded(expanded: boolean): Promise<void>;
	/** rpi: a registered overlay's rows (the host bounds and redacts them). Needs the `overlay` UI capability. */
	setRows(id: string, rows: Array<string | { text: string; style?: string }>): Promise<void>;
	/** rpi: opens a registered overlay. */
	open(id: string, options?: { nonCapturing?: boolean }): Promise<void>;
}

// ── session actions ──────────────────────────────────────────────────────────

export interface CustomMessage<T = unknown> {
	customType: string;
	content: string | ContentBlock[];
	/** Default true. */
	display?: boolean;
	details?: T;
}

export interface CommandInfo {
	name: string;
	description?: string;
	source: string;
	sourceInfo: { path: string; source: string; scope: string; origin: string; baseDir?: string };
}

export interface CompactionResult {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	estimatedTokensAfter?: number;
	[key: string]: unknown;
}

/**
 * Session actions (need the `session_actions` capability). Each resolves with
 * the host's answer and rejects with an ExtensionRequestError on a failure.
 */
export interface SessionActions {
	/** deliverAs defaults to "steer". */
	sendMessage<T = unknown>(
		message: CustomMessage<T>,
		options?: { triggerTurn?: boolean; deliverAs?: Delivery },
	): Promise<null>;
	sendUserMessage(content: string | ContentBlock[], options?: { deliverAs?: Delivery }): Promise<null>;
	/** Resolves with the new entry's id. */
	appendEntry<T = unknown>(customType: string, data?: T): Promise<string>;
	setSessionName(name: string): Promise<null>;
	setLabel(entryId: string, label: string | undefined): Promise<null>;
	setActiveTools(toolNames: string[]): Promise<null>;
	/** pier addition: the live active tool names (pi.getActiveTools() reads the invocation's snapshot). */
	fetchActiveTools(): Promise<string[]>;
	/** pier addition: every tool, live. */
	fetchAllTools(): Promise<Array<{ name: string; description?: string }>>;
	/** pier addition: the session's commands, live. */
	fetchCommands(): Promise<CommandInfo[]>;
	/** Resolves true; rejects when the model is not registered. */
	setModel(model: Model): Promise<boolean>;
	setThinkingLevel(
		level: ThinkingLevel,
	): Promise<{ requested: ThinkingLevel; effective: ThinkingLevel; clamped: boolean; message: string }>;
	/** pier addition: the session's current system prompt (the snapshot's `getSystemPrompt()` may be older). */
	fetchSystemPrompt(): Promise<string>;
	/** pier addition: the session's current thinking level. */
	fetchThinkingLevel(): Promise<ThinkingLevel>;
	/** pier addition: pi's session entries from the root to the current leaf (`type`, `id`, `parentId`, …). */
	getSessionBranch(): Promise<Array<{ type: string; id: string; [key: string]: unknown }>>;
}

/** Session replacement answers: `cancelled` when a `session_before_*` hook vetoed it. */
export interface ReplacementResult {
	cancelled: boolean;
}

// ── handler context ──────────────────────────────────────────────────────────

/** What every handler gets: host facts, the invocation's snapshot, UI and session control. */
export interface ExtensionContext extends SessionActions {
	/** The extension's working directory, from the host's hello. */
	readonly cwd: string;
	readonly mode: Mode;
	/** The trust flag from the host's hello; `isProjectTrusted()` is pi's answer for this session. */
	readonly projectTrusted: boolean;
	/** Interactive mode (tui/rpc) and at least one UI capability declared. */
	readonly hasUI: boolean;
	/** Aborted when the host cancels this invocation. */
	readonly signal: AbortSignal;
	readonly ui: ExtensionUIContext;
	// From the context snapshot; undefined when the host attached no session.
	readonly sessionName: string | undefined;
	readonly sessionId: string | undefined;
	readonly sessionFile: string | undefined;
	readonly model: Model | undefined;
	readonly thinkingLevel: ThinkingLevel | undefined;
	isIdle(): boolean | undefined;
	hasPendingMessages(): boolean | undefined;
	getContextUsage(): ContextUsage | undefined;
	getSystemPrompt(): string | undefined;
	/**
	 * pi 1.6: whether project-local trust is active for this session (pier's decision: the store, `--approve`, a
	 * trust hook, the question). Read this before honouring a project's own configuration.
	 */
	isProjectTrusted(): boolean;
	abort(): Promise<null>;
	shutdown(): Promise<null>;
	/** rpi: a string is the custom instructions. Resolves once the compaction is done. */
	compact(
		options?:
			| string
			| {
					customInstructions?: string;
					onComplete?: (result: CompactionResult) => void;
					onError?: (error: Error) => void;
			  },
	): Promise<CompactionResult>;
	reload(): Promise<{ generation: number; diagnostics: Array<{ level: string; message: string; path?: string }> }>;
	waitForIdle(): Promise<null>;
	// pier additions; pi allows them only in command handlers, and the host refuses them elsewhere.
	newSession(options?: { parentSession?: string }): Promise<ReplacementResult>;
	fork(entryId: string, options?: { position?: "before" | "at" }): Promise<ReplacementResult>;
	navigateTree(
		targetId: string,
		options?: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string },
	): Promise<ReplacementResult>;
	switchSession(sessionPath: string): Promise<ReplacementResult>;
}

// ── registrations ────────────────────────────────────────────────────────────

/** JSON Schema; a TypeBox schema works too (it is sent as its JSON). */
export type JsonSchema = Record<string, unknown>;

// biome-ignore lint/suspicious/noExplicitAny: params are what the JSON Schema says; TS authors pass the type argument
export interface ToolDefinition<TParams = any, TDetails = unknown> {
	name: string;
	/** Defaults to the name. */
	label?: string;
	/** Defaults to the label. */
	description?: string;
	/** Defaults to an object schema without properties. */
	parameters?: JsonSchema;
	promptGuidelines?: string[];
	executionMode?: "default" | "sequential" | "parallel";
	capability?: "read" | "write" | "exec";
	/**
	 * A thrown error becomes the failure `extension_error`; when `signal` is
	 * aborted (host cancel) the invocation fails with `cancelled` whatever happens.
	 */
	execute(
		toolCallId: string,
		params: TParams,
		signal: AbortSignal,
		onUpdate: (partialResult: AgentToolResult<TDetails>) => void,
		ctx: ExtensionContext,
	): Promise<AgentToolResult<TDetails>> | AgentToolResult<TDetails>;
}

export interface CommandOptions {
	description?: string;
	/** `args` is the raw text after the command ("" if none); the return value is the response value. */
	handler(args: string, ctx: ExtensionContext): unknown;
}

export interface ShortcutOptions {
	description?: string;
	handler(ctx: ExtensionContext): unknown;
}

export interface FlagOptions {
	type: "boolean" | "string";
	default?: boolean | string;
	description?: string;
}

/** pier addition: a model a provider offers (defaults: name = id, text input, 128k context, 4k output, zero cost). */
export interface ProviderModel {
	id: string;
	name?: string;
	reasoning?: boolean;
	input?: ("text" | "image")[];
	contextWindow?: number;
	maxTokens?: number;
	cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** What a provider's `complete` is asked: one model turn. */
export interface ProviderRequest {
	providerId: string;
	/** The model asked for, as extensions see models (no headers, no key). */
	model: Model | null;
	/** pi-ai messages (user, assistant, toolResult). */
	messages: unknown[];
	systemPrompt?: string;
	/** The active tools: `{name, description, parameters}`. */
	tools: Array<{ name: string; description: string; parameters: JsonSchema }>;
	/** `{temperature?, maxTokens?, reasoning?}` */
	options: Record<string, unknown> | null;
	sessionId?: string;
	/** Streams text before the answer: `{type:"text_delta", delta}` or `{type:"thinking_delta", delta}`. */
	emit(event: { type: "text_delta" | "thinking_delta"; delta: string }): void;
}

/** pi-ai's AssistantMessage, which `complete` returns; `api`, `provider`, `model`, `usage`, `timestamp` default. */
export interface AssistantMessage {
	role: "assistant";
	content: Array<
		| { type: "text"; text: string }
		| { type: "thinking"; thinking: string }
		| { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }
	>;
	stopReason: "stop" | "length" | "toolUse" | "error" | "aborted";
	api?: string;
	provider?: string;
	model?: string;
	usage?: Record<string, unknown>;
	errorMessage?: string;
	timestamp?: number;
}

/** pier addition: `pi.registerProvider(id, config)` (needs the `provider` capability). */
export interface ProviderConfig {
	/** The API style it speaks (informational; pier gives each provider its own stream). Defaults to the id. */
	api?: string;
	label?: string;
	baseUrl?: string;
	/** Without models the provider offers `default` and any model id `--model <id>/<model>` asks for. */
	models?: Array<ProviderModel | string>;
	capabilities?: string[];
	complete(request: ProviderRequest, ctx: ExtensionContext): AssistantMessage | Promise<AssistantMessage>;
}

/** One compact stream event of rpi's provider contract. */
export type ProviderStreamEvent =
	| { type: "start" }
	| { type: "text" | "text_delta" | "thinking"; [key: string]: unknown }
	| { type: "tool_call"; [key: string]: unknown }
	| { type: "done"; [key: string]: unknown }
	| { type: "error"; [key: string]: unknown };

/** rpi's `pi.registerProvider({...})` (needs the `provider` capability; load phase only). */
export interface StreamProviderOptions {
	/** 1–128 characters of [A-Za-z0-9_.-]. */
	id: string;
	label?: string;
	/** Defaults to the id. */
	api?: string;
	capabilities?: string[];
	/** pier addition, as in ProviderConfig. */
	baseUrl?: string;
	/** pier addition: without models the provider offers `default` and any model id `--model <id>/<model>` asks for. */
	models?: Array<ProviderModel | string>;
	/** Each yielded event reaches the host as an `update`, in order. */
	stream(
		sessionId: string | null,
		messages: unknown[],
		options: Record<string, unknown> | null,
	):
		| AsyncIterable<ProviderStreamEvent>
		| Iterable<ProviderStreamEvent>
		| Promise<AsyncIterable<ProviderStreamEvent> | Iterable<ProviderStreamEvent>>;
}

/** rpi's `pi.registerOverlay({...})` (needs the `overlays` capability; load phase only). */
export interface OverlayOptions {
	id: string;
	/** Defaults to the id; 1–256 printable characters. */
	title?: string;
	input?: { placeholder?: string; multiline?: boolean };
	render(ctx: ExtensionContext): OverlayRows | { rows: OverlayRows } | Promise<OverlayRows | { rows: OverlayRows }>;
	onSubmit?(text: string, ctx: ExtensionContext): unknown;
	onKey?(action: string, ctx: ExtensionContext): unknown;
}
export type OverlayRows = Array<string | { text: string; style?: string }>;

/** pi's event bus between this extension's own handlers. */
export interface EventBus {
	emit(channel: string, data: unknown): void;
	/** Returns the unsubscribe function. */
	on(channel: string, handler: (data: unknown) => void): () => void;
}

// ── hooks ────────────────────────────────────────────────────────────────────

export interface ToolCallEvent {
	type: "tool_call";
	toolCallId: string;
	toolName: string;
	/** Mutating it in place changes the arguments, as in pi. */
	input: Record<string, unknown>;
}
export interface ToolCallEventResult {
	block?: boolean;
	reason?: string;
	input?: unknown;
}

export interface InputEvent {
	type: "input";
	text: string;
	images: ImageContent[];
	source: string;
	streamingBehavior?: "steer" | "followUp" | null;
}
export type InputEventResult =
	| { action: "continue" }
	| { action: "transform"; text: string; images?: ImageContent[] }
	| { action: "handled" };

export interface ToolResultEvent {
	type: "tool_result";
	toolCallId: string;
	toolName: string;
	input: Record<string, unknown>;
	content: ContentBlock[];
	details: unknown;
	isError: boolean;
}
export interface ToolResultEventResult {
	content?: ContentBlock[];
	details?: unknown;
	isError?: boolean;
}

export interface BeforeAgentStartEvent {
	type: "before_agent_start";
	prompt: string;
	images: ImageContent[];
	systemPrompt: string;
}
export interface BeforeAgentStartEventResult {
	message?: CustomMessage & { display: boolean };
	messages?: Array<CustomMessage & { display: boolean }>;
	systemPrompt?: string;
}

export interface SessionStartEvent {
	type: "session_start";
	reason: "startup" | "reload";
}
export interface SessionShutdownEvent {
	type: "session_shutdown";
	reason: string;
}

/** Typed hooks; every other known hook name is accepted with a loose event type. */
export interface HookMap {
	tool_call: { event: ToolCallEvent; result: ToolCallEventResult };
	input: { event: InputEvent; result: InputEventResult };
	tool_result: { event: ToolResultEvent; result: ToolResultEventResult };
	before_agent_start: { event: BeforeAgentStartEvent; result: BeforeAgentStartEventResult };
	session_start: { event: SessionStartEvent; result: undefined };
	session_shutdown: { event: SessionShutdownEvent; result: undefined };
	context: { event: { type: "context"; messages: unknown[] }; result: { messages?: unknown[] } };
	session_before_switch: { event: HookEvent<"session_before_switch">; result: { cancel?: boolean } };
	session_before_fork: {
		event: HookEvent<"session_before_fork">;
		result: { cancel?: boolean; skipConversationRestore?: boolean };
	};
	session_before_compact: {
		event: HookEvent<"session_before_compact">;
		result: { cancel?: boolean; compaction?: CompactionResult };
	};
	before_provider_headers: {
		event: { type: "before_provider_headers"; headers: Record<string, string | null> };
		result: { headers: Record<string, string | null> };
	};
	// pi 1.6's events (docs/protocol-v1.md §7.1).
	session_compact_failed: {
		event: {
			type: "session_compact_failed";
			reason: "manual" | "threshold" | "overflow";
			errorMessage?: string;
			aborted: boolean;
			willRetry: boolean;
			fromExtension: boolean;
		};
		result: undefined;
	};
	ui_prompt_start: { event: UIPromptEvent<"ui_prompt_start">; result: undefined };
	ui_prompt_end: { event: UIPromptEvent<"ui_prompt_end">; result: undefined };
	context_with_system: {
		event: { type: "context_with_system"; messages: unknown[] };
		result: { messages?: unknown[] };
	};
	cache_warming_decision: {
		event: {
			type: "cache_warming_decision";
			warmCost: number;
			missCost: number;
			continuationProbability: number;
			action: "warm" | "stop";
		};
		result: { action?: "warm" | "stop" };
	};
	agent_before_settle: {
		event: {
			type: "agent_before_settle";
			outcome: "completed" | "aborted" | "error";
			entries: BoundaryDraft[];
			continue: boolean;
			context: {
				contextEntries: unknown[];
				contextMessages: unknown[];
				llmMessages: unknown[];
				pendingMessages: unknown[];
				canContinue: boolean;
			};
		};
		/** `entries` replaces the list so far: return the event's with yours added. */
		result: { entries?: BoundaryDraft[]; continue?: boolean };
	};
	provider_stream_event: {
		event: { type: "provider_stream_event"; provider: string; api: string; model: string; data: unknown };
		result: undefined;
	};
	mcp_servers_change: {
		/** pier leaves out what may carry a key: `env`, `headers`, `oauth`, `auth`, `args`, `cwd`, URL credentials. */
		event: {
			type: "mcp_servers_change";
			servers: Array<{ name: string; extensionPath: string; config: Record<string, unknown> }>;
		};
		result: undefined;
	};
}

/** pi 1.6's UIPromptStartEvent / UIPromptEndEvent: pi waits on a blocking extension dialog. */
export interface UIPromptEvent<T extends string> {
	type: T;
	reason: "ui_prompt";
	kind: "select" | "confirm" | "input" | "editor" | "custom";
	title?: string;
}

/** pi 1.6's SessionBoundaryDraft: an entry agent_before_settle appends to the session. */
export type BoundaryDraft =
	| { type: "custom"; customType: string; data?: unknown }
	| { type: "custom_message"; customType: string; content: string | unknown[]; display: boolean; details?: unknown }
	| { type: "context_edit"; targetId: string; replacement: unknown }
	| { type: "compaction"; summary: string; firstKeptEntryId: string | null; details?: unknown; usage?: unknown };

/** The hooks pier accepts (docs/protocol-v1.md §7.1); any other name fails the load. */
export type HookName =
	| keyof HookMap
	| "project_trust"
	| "resources_discover"
	| "session_info_changed"
	| "session_compact"
	| "session_before_tree"
	| "session_tree"
	| "before_provider_request"
	| "after_provider_response"
	| "agent_start"
	| "agent_end"
	| "agent_settled"
	| "turn_start"
	| "turn_end"
	| "message_start"
	| "message_update"
	| "message_end"
	| "tool_execution_start"
	| "tool_execution_update"
	| "tool_execution_end"
	| "model_select"
	| "thinking_level_select"
	| "user_bash"
	| "trust_decision";

/** `{type: name, ...data}` (non-object data arrives as `{type, data}`). */
export type HookEvent<N extends string> = { type: N; [key: string]: unknown };

export type HookHandler<E, R> = (event: E, ctx: ExtensionContext) => R | undefined | Promise<R | undefined>;

// ── the API ──────────────────────────────────────────────────────────────────

/**
 * `pi`, as given to the factory. `register*` and `on` work only inside the
 * factory (they throw afterwards); the session actions work only after it (they
 * throw during it) and, called from a handler, belong to that invocation: a host
 * cancel rejects them.
 */
export interface ExtensionAPI extends SessionActions {
	// biome-ignore lint/suspicious/noExplicitAny: as in ToolDefinition
	registerTool<TParams = any, TDetails = unknown>(tool: ToolDefinition<TParams, TDetails>): void;
	registerCommand(name: string, options: CommandOptions): void;
	registerShortcut(key: string, options: ShortcutOptions): void;
	registerFlag(name: string, options: FlagOptions): void;
	registerProvider(id: string, config: ProviderConfig): void;
	registerProvider(options: StreamProviderOptions): void;
	/** Load phase only: drops a provider this extension registered (the host hears `unregister_provider`). */
	unregisterProvider(id: string): void;
	registerOverlay(options: OverlayOptions): void;
	/** How the host shows custom messages of `messageType` (needs `message_renderers`; not in QuickJS). */
	registerMessageRenderer(
		messageType: string,
		render: (message: unknown, options: { expanded: boolean }, ctx: ExtensionContext) => unknown,
	): void;
	/**
	 * pier addition: sends a protocol v1 runtime request as is (docs/protocol-v1.md §4.7: `{kind:"ui", ui:{request,
	 * timeoutMs?}}` or `{kind:"action", action}`) and resolves with the host's success value; a failure rejects with
	 * an ExtensionRequestError. `signal` cancels it at the host. For runtimes built on the kit.
	 */
	runtimeRequest(
		request:
			| { kind: "ui"; ui: { request: Record<string, unknown>; timeoutMs?: number } }
			| { kind: "action"; action: Record<string, unknown> },
		options?: { signal?: AbortSignal },
	): Promise<unknown>;
	/**
	 * pier addition, for runtimes built on the kit (the native plugin host): an entry renderer (`render_entry`,
	 * answered like `render_message`) and the extension's one markdown transformer (`transform_markdown`; its
	 * answer is the markdown). Both need `message_renderers`.
	 */
	readonly hostRenderers: {
		registerEntryRenderer(
			entryType: string,
			render: (entry: unknown, options: { expanded: boolean }, ctx: ExtensionContext) => unknown,
		): void;
		registerMarkdownTransformer(
			transform: (
				markdown: string,
				context: {
					messageType: string;
					isStreaming?: boolean;
					availableWidth?: number;
					messageId?: string;
					timestamp?: string;
				},
				ctx: ExtensionContext,
			) => string | Promise<string>,
			messageTypes: readonly string[],
		): void;
	};
	/** pier addition: the current invocation's context snapshot, else the latest seen (docs/protocol-v1.md §6). */
	contextSnapshot(): Record<string, unknown> | undefined;
	/** The value in the current invocation's snapshot `flagValues`, else the registered default. */
	getFlag(name: string): boolean | string | undefined;
	/** From the current (or latest) context snapshot. */
	getSessionName(): string | undefined;
	getThinkingLevel(): ThinkingLevel | undefined;
	/** From the snapshot, synchronously as in pi (REFERENCES #7); fetchActiveTools() asks the host. */
	getActiveTools(): string[];
	getAllTools(): Array<{ name: string; [key: string]: unknown }>;
	getCommands(): CommandInfo[];
	/**
	 * Load phase only. Returns pi 1.6's unsubscribe: calling it (at any time) stops this registration's delivery;
	 * the host still sends the event, and with no handler left the extension answers it with null.
	 */
	/**
	 * pi 1.6 methods protocol v1 cannot carry: each throws "pi.NAME is not available to process extensions in
	 * pier: WHY" (renderers run in pi's process; virtual models route in it; MCP registration, settings and exec
	 * have no request). Present so an extension written for pi fails naming what it asked for.
	 */
	registerEntryRenderer(customType: string, renderer: unknown): never;
	registerToolRenderer(resolver: unknown): never;
	registerMarkdownTransformer(transformer: unknown, options?: unknown): never;
	registerVirtualModel(model: unknown): never;
	unregisterVirtualModel(provider: string, id: string): never;
	registerMcpServer(name: string, config: unknown): never;
	unregisterMcpServer(name: string): never;
	getMcpServers(): never;
	getSettings(): never;
	exec(command: string, args: string[], options?: unknown): never;
	on<K extends keyof HookMap>(event: K, handler: HookHandler<HookMap[K]["event"], HookMap[K]["result"]>): () => void;
	on<N extends Exclude<HookName, keyof HookMap>>(event: N, handler: HookHandler<HookEvent<N>, unknown>): () => void;
	readonly events: EventBus;
}
