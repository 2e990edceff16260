/**
 * Protocol v1: every frame, both directions, declared once. Each schema both
 * validates (unknown fields are rejected everywhere, as in rpi) and types the
 * TypeScript side. Free-form payloads (tool arguments, results, models,
 * messages, event data) are `unknown` here and checked where they are used.
 */
import { type Static, type TSchema, Type } from "typebox";
import { Compile } from "typebox/compile";
import { CapabilitySchema, UiCapabilitySchema } from "./capabilities.js";
import { type LazyValidator, lazyValidator } from "./lazy-validator.js";
import { FORM_FIELD_TYPES, FORM_LIMITS } from "../../../kit/core/form.mjs";

export const PROTOCOL_VERSION = 1;

const closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
	Type.Object(properties, { additionalProperties: false });
const tagged = <K extends string, T extends Parameters<typeof Type.Object>[0]>(key: K, tag: string, properties: T) =>
	closed({ [key]: Type.Literal(tag), ...properties } as { [P in K]: ReturnType<typeof Type.Literal> } & T);
const Json = Type.Unknown();
const Opt = Type.Optional;

// ── shared pieces ────────────────────────────────────────────────────────────

export const InstanceId = closed({ extensionId: Type.String(), generation: Type.Integer({ minimum: 0 }) });
export const Mode = Type.Union([Type.Literal("tui"), Type.Literal("rpc"), Type.Literal("json"), Type.Literal("print")]);
export type Mode = Static<typeof Mode>;
export const ThinkingLevel = Type.Union(
	["off", "minimal", "low", "medium", "high", "xhigh", "max"].map((l) => Type.Literal(l)),
);

export const ProtocolErrorSchema = closed({ code: Type.String(), message: Type.String() });
export const ProtocolResult = Type.Union([
	tagged("status", "success", { value: Opt(Json) }),
	tagged("status", "failure", { error: ProtocolErrorSchema }),
]);
export type ProtocolResult =
	| { status: "success"; value?: unknown }
	| { status: "failure"; error: { code: string; message: string } };

export const CapabilityManifest = closed({
	id: Type.String(),
	name: Type.String(),
	version: Type.String(),
	capabilities: Opt(Type.Array(CapabilitySchema)),
	uiCapabilities: Opt(Type.Array(UiCapabilitySchema)),
});
export type CapabilityManifest = Static<typeof CapabilityManifest>;

// ── registrations (load phase) ───────────────────────────────────────────────

export const CommandDescriptor = closed({ name: Type.String(), description: Opt(Type.String()) });
export const ToolDescriptor = closed({
	name: Type.String(),
	label: Type.String(),
	description: Type.String(),
	parameters: Json,
	capability: Opt(Type.Union([Type.Literal("read"), Type.Literal("write"), Type.Literal("exec")])),
	executionMode: Opt(Type.Union([Type.Literal("default"), Type.Literal("sequential"), Type.Literal("parallel")])),
	promptGuidelines: Opt(Type.Array(Type.String())),
});
/**
 * pier addition: a model a `provider` registration offers (pi's ProviderModelConfig, the fields an extension may
 * set). Omitted fields get the defaults in bridge/providers.ts.
 */
export const MAX_PROVIDER_MODELS = 64;
export const ProviderModel = closed({
	id: Type.String(),
	name: Opt(Type.String()),
	reasoning: Opt(Type.Boolean()),
	input: Opt(Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")]))),
	contextWindow: Opt(Type.Integer({ minimum: 1 })),
	maxTokens: Opt(Type.Integer({ minimum: 1 })),
	cost: Opt(
		closed({ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number() }),
	),
});
export interface ProviderModel {
	id: string;
	name?: string;
	reasoning?: boolean;
	input?: ("text" | "image")[];
	contextWindow?: number;
	maxTokens?: number;
	cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
}
export const OverlayInputDeclaration = closed({ placeholder: Opt(Type.String()), multiline: Opt(Type.Boolean()) });

export const Registration = Type.Union([
	tagged("kind", "command", { command: CommandDescriptor }),
	tagged("kind", "tool", { tool: ToolDescriptor }),
	tagged("kind", "event_hook", { hook: closed({ event: Type.String() }) }),
	tagged("kind", "message_renderer", { renderer: closed({ messageType: Type.String() }) }),
	tagged("kind", "provider_metadata", {
		provider: closed({
			id: Type.String(),
			name: Opt(Type.String()),
			baseUrl: Opt(Type.String()),
			api: Opt(Type.String()),
			models: Opt(Type.Array(Json)),
			metadata: Opt(Json),
		}),
	}),
	tagged("kind", "provider", {
		provider: closed({
			id: Type.String(),
			label: Opt(Type.String()),
			api: Type.String(),
			capabilities: Opt(Type.Array(Type.String())),
			baseUrl: Opt(Type.String()),
			models: Opt(Type.Array(ProviderModel, { maxItems: MAX_PROVIDER_MODELS })),
		}),
	}),
	tagged("kind", "shortcut", { shortcut: closed({ key: Type.String(), description: Opt(Type.String()) }) }),
	tagged("kind", "flag", {
		flag: closed({
			name: Type.String(),
			description: Opt(Type.String()),
			type: Type.Union([Type.Literal("boolean"), Type.Literal("string")]),
			default: Opt(Json),
		}),
	}),
	tagged("kind", "overlay", {
		overlay: closed({ id: Type.String(), title: Type.String(), input: Opt(OverlayInputDeclaration) }),
	}),
]);

export type CommandDescriptor = Static<typeof CommandDescriptor>;
export type ToolDescriptor = Omit<Static<typeof ToolDescriptor>, "parameters"> & {
	parameters: Record<string, unknown>;
};
export type Registration =
	| { kind: "command"; command: CommandDescriptor }
	| { kind: "tool"; tool: ToolDescriptor }
	| { kind: "event_hook"; hook: { event: string } }
	| { kind: "message_renderer"; renderer: { messageType: string } }
	| {
			kind: "provider_metadata";
			provider: { id: string; name?: string; baseUrl?: string; api?: string; models?: unknown[]; metadata?: unknown };
	  }
	| {
			kind: "provider";
			provider: {
				id: string;
				label?: string;
				api: string;
				capabilities?: string[];
				/** pier addition: shown as the models' base URL. */
				baseUrl?: string;
				/** pier addition: the models pi's registry offers under this provider (bridge/providers.ts). */
				models?: ProviderModel[];
			};
	  }
	| { kind: "shortcut"; shortcut: { key: string; description?: string } }
	| { kind: "flag"; flag: { name: string; description?: string; type: "boolean" | "string"; default?: unknown } }
	| {
			kind: "overlay";
			overlay: { id: string; title: string; input?: { placeholder?: string; multiline?: boolean } };
	  };
export type RegistrationKind = Registration["kind"];

// ── invocations (host → extension) ───────────────────────────────────────────

export const ExtensionEvent = closed({ name: Type.String(), data: Opt(Json) });
export const Invocation = Type.Union([
	tagged("kind", "command", { name: Type.String(), arguments: Type.String() }),
	tagged("kind", "tool", { name: Type.String(), callId: Type.String(), arguments: Json }),
	tagged("kind", "event", { event: ExtensionEvent }),
	tagged("kind", "provider", {
		providerId: Type.String(),
		sessionId: Opt(Type.String()),
		messages: Opt(Type.Array(Json)),
		options: Opt(Json),
		model: Opt(Json),
		systemPrompt: Opt(Type.String()),
		tools: Opt(Type.Array(Json)),
	}),
	tagged("kind", "render_message", {
		request: closed({ messageType: Type.String(), message: Json, expanded: Opt(Type.Boolean()) }),
	}),
	tagged("kind", "shortcut", { key: Type.String() }),
	tagged("kind", "overlay_render", { id: Type.String() }),
	tagged("kind", "overlay_event", {
		id: Type.String(),
		event: Type.Union([
			tagged("kind", "submit", { text: Type.String() }),
			tagged("kind", "key", { action: Type.String() }),
		]),
	}),
]);
export type Invocation =
	| { kind: "command"; name: string; arguments: string }
	| { kind: "tool"; name: string; callId: string; arguments: unknown }
	| { kind: "event"; event: { name: string; data?: unknown } }
	| {
			kind: "provider";
			providerId: string;
			sessionId?: string;
			messages?: unknown[];
			options?: unknown;
			/** pier addition: the model asked for (as extensions see models, bridge/context.ts). */
			model?: unknown;
			/** pier addition: the context's system prompt and tools (name, description, parameters). */
			systemPrompt?: string;
			tools?: unknown[];
	  }
	| { kind: "render_message"; request: { messageType: string; message: unknown; expanded?: boolean } }
	| { kind: "shortcut"; key: string }
	| { kind: "overlay_render"; id: string }
	| { kind: "overlay_event"; id: string; event: { kind: "submit"; text: string } | { kind: "key"; action: string } };

export const ContextSnapshot = closed({
	sessionName: Opt(Type.String()),
	sessionId: Opt(Type.String()),
	sessionFile: Opt(Type.String()),
	isIdle: Type.Boolean(),
	projectTrusted: Type.Boolean(),
	hasPendingMessages: Type.Boolean(),
	contextUsage: Opt(
		closed({ tokens: Opt(Type.Integer()), contextWindow: Type.Integer(), percent: Opt(Type.Number()) }),
	),
	activeTools: Opt(Type.Array(Type.String())),
	allTools: Opt(Type.Array(Type.String())),
	commands: Opt(Type.Array(CommandDescriptor)),
	flagValues: Opt(Type.Record(Type.String(), Json)),
	systemPrompt: Type.String(),
	model: Opt(Json),
	thinkingLevel: ThinkingLevel,
});
export type ContextSnapshot = Omit<Static<typeof ContextSnapshot>, "thinkingLevel" | "model"> & {
	thinkingLevel: string;
	model?: unknown;
};

export const HostRequest = Type.Union([
	tagged("kind", "load", {}),
	tagged("kind", "initialize", {}),
	tagged("kind", "invoke", { invocation: Invocation, context: Opt(ContextSnapshot) }),
]);
export type HostRequest =
	| { kind: "load" }
	| { kind: "initialize" }
	| { kind: "invoke"; invocation: Invocation; context?: ContextSnapshot };

// ── runtime requests (extension → host): UI and session actions ─────────────

const SelectOption = closed({ value: Type.String(), label: Type.String(), description: Opt(Type.String()) });
const OverlayRow = Type.Union([Type.String(), closed({ text: Type.String(), style: Opt(Type.String()) })]);

/**
 * pier addition: one field of a `form` request, PiChamber's `FormField` (src/chamber/ui/descriptors.ts). The
 * schema fixes the shape only; the host's form normalization stays authoritative (empty ids or labels, duplicate
 * ids, select options, min/max, text lengths) and refuses a bad form with `ui_request_failed`.
 */
export { FORM_FIELD_TYPES };
/** The form rules are kit/core/form.mjs's, the guest core's own. */
export const MAX_FORM_FIELDS = FORM_LIMITS.fields;
const FormFieldSchema = closed({
	id: Type.String(),
	label: Type.String(),
	type: Type.Union(FORM_FIELD_TYPES.map((t) => Type.Literal(t))),
	required: Opt(Type.Boolean()),
	placeholder: Opt(Type.String()),
	options: Opt(Type.Array(Type.String())),
	initial: Opt(Type.String()),
	min: Opt(Type.Number()),
	max: Opt(Type.Number()),
});
export interface FormFieldRequest {
	id: string;
	label: string;
	type: (typeof FORM_FIELD_TYPES)[number];
	required?: boolean;
	placeholder?: string;
	options?: string[];
	initial?: string;
	min?: number;
	max?: number;
}

export const UiRequest = Type.Union([
	tagged("type", "select", { title: Type.String(), options: Type.Array(SelectOption) }),
	tagged("type", "confirm", { title: Type.String(), message: Type.String() }),
	tagged("type", "input", { title: Type.String(), placeholder: Opt(Type.String()), value: Opt(Type.String()) }),
	tagged("type", "editor", { title: Type.String(), prefill: Opt(Type.String()) }),
	tagged("type", "form", {
		title: Type.String(),
		fields: Type.Array(FormFieldSchema, { maxItems: MAX_FORM_FIELDS }),
	}),
	tagged("type", "notify", {
		message: Type.String(),
		level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
	}),
	tagged("type", "status", { key: Type.String(), text: Opt(Type.String()) }),
	tagged("type", "widget", {
		key: Type.String(),
		lines: Opt(Type.Array(Type.String())),
		placement: Type.Union([Type.Literal("above_editor"), Type.Literal("below_editor")]),
	}),
	tagged("type", "title", { title: Type.String() }),
	tagged("type", "set_editor_text", { text: Type.String() }),
	tagged("type", "get_editor_text", {}),
	tagged("type", "paste_to_editor", { text: Type.String() }),
	tagged("type", "set_working_message", { message: Opt(Type.String()) }),
	tagged("type", "set_working_visible", { visible: Type.Boolean() }),
	tagged("type", "set_working_indicator", {
		options: Opt(closed({ frames: Opt(Type.Array(Type.String())), intervalMs: Opt(Type.Integer({ minimum: 0 })) })),
	}),
	tagged("type", "set_hidden_thinking_label", { label: Opt(Type.String()) }),
	tagged("type", "get_all_themes", {}),
	tagged("type", "get_theme", { name: Type.String() }),
	tagged("type", "set_theme", { name: Type.String() }),
	tagged("type", "get_tools_expanded", {}),
	tagged("type", "set_tools_expanded", { expanded: Type.Boolean() }),
	tagged("type", "overlay_set_rows", { id: Type.String(), rows: Type.Array(OverlayRow) }),
	tagged("type", "overlay_open", {
		id: Type.String(),
		title: Opt(Type.String()),
		nonCapturing: Opt(Type.Boolean()),
		input: Opt(OverlayInputDeclaration),
	}),
]);
export type SelectOption = Static<typeof SelectOption>;
export type UiRequest =
	| { type: "select"; title: string; options: SelectOption[] }
	| { type: "confirm"; title: string; message: string }
	| { type: "input"; title: string; placeholder?: string; value?: string }
	| { type: "editor"; title: string; prefill?: string }
	| { type: "form"; title: string; fields: FormFieldRequest[] }
	| { type: "notify"; message: string; level: "info" | "warning" | "error" }
	| { type: "status"; key: string; text?: string }
	| { type: "widget"; key: string; lines?: string[]; placement: "above_editor" | "below_editor" }
	| { type: "title"; title: string }
	| { type: "set_editor_text"; text: string }
	| { type: "get_editor_text" }
	| { type: "paste_to_editor"; text: string }
	| { type: "set_working_message"; message?: string }
	| { type: "set_working_visible"; visible: boolean }
	| { type: "set_working_indicator"; options?: { frames?: string[]; intervalMs?: number } }
	| { type: "set_hidden_thinking_label"; label?: string }
	| { type: "get_all_themes" }
	| { type: "get_theme"; name: string }
	| { type: "set_theme"; name: string }
	| { type: "get_tools_expanded" }
	| { type: "set_tools_expanded"; expanded: boolean }
	| { type: "overlay_set_rows"; id: string; rows: Array<string | { text: string; style?: string }> }
	| {
			type: "overlay_open";
			id: string;
			title?: string;
			nonCapturing?: boolean;
			input?: { placeholder?: string; multiline?: boolean };
	  };

export type UiResponse =
	| { type: "selected"; value?: string }
	| { type: "confirmed"; confirmed: boolean }
	| { type: "input"; value?: string }
	| { type: "edited"; value?: string }
	| { type: "form"; values: Record<string, string> }
	| { type: "acknowledged" }
	| { type: "cancelled" }
	| { type: "editor_text"; value: string }
	| { type: "themes"; themes: Array<{ name: string; path?: string }> }
	| { type: "theme"; theme?: { name: string; path?: string } }
	| { type: "theme_set"; success: boolean; error?: string }
	| { type: "tools_expanded"; expanded: boolean }
	| { type: "overlay_opened" };

const Delivery = Type.Union([Type.Literal("steer"), Type.Literal("followUp"), Type.Literal("nextTurn")]);
const MessageContent = Type.Union([Type.String(), Type.Array(Json)]);
export const RuntimeAction = Type.Union([
	tagged("kind", "send_message", {
		message: closed({
			customType: Type.String(),
			content: MessageContent,
			display: Type.Boolean(),
			details: Opt(Json),
		}),
		delivery: Delivery,
		triggerTurn: Opt(Type.Boolean()),
	}),
	tagged("kind", "send_user_message", { content: MessageContent, delivery: Delivery }),
	tagged("kind", "append_entry", { customType: Type.String(), data: Opt(Json) }),
	tagged("kind", "set_session_name", { name: Type.String() }),
	tagged("kind", "set_label", { entryId: Type.String(), label: Opt(Type.String()) }),
	tagged("kind", "get_active_tools", {}),
	tagged("kind", "get_all_tools", {}),
	tagged("kind", "set_active_tools", { toolNames: Type.Array(Type.String()) }),
	tagged("kind", "get_commands", {}),
	tagged("kind", "set_model", { model: Json }),
	tagged("kind", "set_thinking_level", { level: ThinkingLevel }),
	tagged("kind", "abort", {}),
	tagged("kind", "shutdown", {}),
	tagged("kind", "compact", { customInstructions: Opt(Type.String()) }),
	tagged("kind", "reload", {}),
	tagged("kind", "wait_for_idle", {}),
	tagged("kind", "get_flag", { name: Type.String() }),
	// pier additions (native runtime actions 7, 10, 11–14, 20; any runtime may use them)
	tagged("kind", "get_thinking_level", {}),
	tagged("kind", "get_system_prompt", {}),
	tagged("kind", "get_session_branch", {}),
	tagged("kind", "new_session", { parentSession: Opt(Type.String()) }),
	tagged("kind", "fork", {
		entryId: Type.String(),
		position: Opt(Type.Union([Type.Literal("before"), Type.Literal("at")])),
	}),
	tagged("kind", "navigate_tree", {
		targetId: Type.String(),
		summarize: Opt(Type.Boolean()),
		customInstructions: Opt(Type.String()),
		replaceInstructions: Opt(Type.Boolean()),
		label: Opt(Type.String()),
	}),
	tagged("kind", "switch_session", { sessionPath: Type.String() }),
]);
export type Delivery = "steer" | "followUp" | "nextTurn";
export type MessageContent = string | unknown[];
export type RuntimeAction =
	| {
			kind: "send_message";
			message: { customType: string; content: MessageContent; display: boolean; details?: unknown };
			delivery: Delivery;
			triggerTurn?: boolean;
	  }
	| { kind: "send_user_message"; content: MessageContent; delivery: Delivery }
	| { kind: "append_entry"; customType: string; data?: unknown }
	| { kind: "set_session_name"; name: string }
	| { kind: "set_label"; entryId: string; label?: string }
	| { kind: "get_active_tools" }
	| { kind: "get_all_tools" }
	| { kind: "set_active_tools"; toolNames: string[] }
	| { kind: "get_commands" }
	| { kind: "set_model"; model: unknown }
	| { kind: "set_thinking_level"; level: string }
	| { kind: "abort" }
	| { kind: "shutdown" }
	| { kind: "compact"; customInstructions?: string }
	| { kind: "reload" }
	| { kind: "wait_for_idle" }
	| { kind: "get_flag"; name: string }
	| { kind: "get_thinking_level" }
	| { kind: "get_system_prompt" }
	| { kind: "get_session_branch" }
	| { kind: "new_session"; parentSession?: string }
	| { kind: "fork"; entryId: string; position?: "before" | "at" }
	| {
			kind: "navigate_tree";
			targetId: string;
			summarize?: boolean;
			customInstructions?: string;
			replaceInstructions?: boolean;
			label?: string;
	  }
	| { kind: "switch_session"; sessionPath: string };

export const RuntimeRequest = Type.Union([
	tagged("kind", "ui", { ui: closed({ request: UiRequest, timeoutMs: Opt(Type.Integer({ minimum: 0 })) }) }),
	tagged("kind", "action", { action: RuntimeAction }),
]);
export type RuntimeRequest =
	| { kind: "ui"; ui: { request: UiRequest; timeoutMs?: number } }
	| { kind: "action"; action: RuntimeAction };

// ── frames ───────────────────────────────────────────────────────────────────

export type HostFrame =
	| {
			type: "hello";
			protocolVersion: number;
			instance: { extensionId: string; generation: number };
			cwd: string;
			mode: Mode;
			projectTrusted: boolean;
	  }
	| { type: "request"; id: string; generation: number; request: HostRequest }
	| { type: "response"; id: string; result: ProtocolResult }
	| { type: "cancel"; id: string }
	| { type: "shutdown"; reason: string };

export type ExtensionFrame =
	| { type: "hello"; protocolVersion: number; manifest: CapabilityManifest }
	| { type: "register"; registration: Registration }
	| { type: "unregister_provider"; id: string }
	| { type: "response"; id: string; result: ProtocolResult }
	| { type: "update"; id: string; value: unknown }
	| { type: "request"; id: string; request: RuntimeRequest }
	| { type: "cancel"; id: string };

const hostFrameSchemas: Record<HostFrame["type"], TSchema> = {
	hello: tagged("type", "hello", {
		protocolVersion: Type.Integer(),
		instance: InstanceId,
		cwd: Type.String(),
		mode: Mode,
		projectTrusted: Type.Boolean(),
	}),
	request: tagged("type", "request", { id: Type.String(), generation: Type.Integer(), request: HostRequest }),
	response: tagged("type", "response", { id: Type.String(), result: ProtocolResult }),
	cancel: tagged("type", "cancel", { id: Type.String() }),
	shutdown: tagged("type", "shutdown", { reason: Type.String() }),
};

const extensionFrameSchemas: Record<ExtensionFrame["type"], TSchema> = {
	hello: tagged("type", "hello", { protocolVersion: Type.Integer(), manifest: CapabilityManifest }),
	register: tagged("type", "register", { registration: Registration }),
	unregister_provider: tagged("type", "unregister_provider", { id: Type.String() }),
	response: tagged("type", "response", { id: Type.String(), result: ProtocolResult }),
	update: tagged("type", "update", { id: Type.String(), value: Json }),
	request: tagged("type", "request", { id: Type.String(), request: RuntimeRequest }),
	cancel: tagged("type", "cancel", { id: Type.String() }),
};

export class ProtocolViolation extends Error {
	override name = "ProtocolViolation";
}

type Validator = { schema: TSchema; check: LazyValidator<TSchema> };
/** Each frame type's validator is compiled when a frame of that type first arrives (lazy-validator.ts). */
function compileAll<K extends string>(schemas: Record<K, TSchema>): Map<string, Validator> {
	return new Map(Object.entries<TSchema>(schemas).map(([k, schema]) => [k, { schema, check: lazyValidator(schema) }]));
}
const hostValidators = compileAll(hostFrameSchemas);
const extensionValidators = compileAll(extensionFrameSchemas);

type SchemaNode = {
	anyOf?: SchemaNode[];
	properties?: Record<string, SchemaNode>;
	const?: unknown;
	[k: string]: unknown;
};

/**
 * The branch of a tagged union that `value` claims by its tag, applied all the way down. `choices` collects
 * which branch was taken where, which identifies the narrowed schema.
 */
function narrow(schema: SchemaNode, value: unknown, choices: string[] = []): SchemaNode {
	if (value === null || typeof value !== "object") return schema;
	const record = value as Record<string, unknown>;
	if (schema.anyOf) {
		const index = schema.anyOf.findIndex((b) => {
			const tags = Object.entries(b.properties ?? {}).filter(([, p]) => p.const !== undefined);
			return tags.length > 0 && tags.every(([k, p]) => record[k] === p.const);
		});
		choices.push(String(index));
		return index >= 0 ? narrow(schema.anyOf[index]!, value, choices) : schema;
	}
	if (!schema.properties) return schema;
	const properties = Object.fromEntries(
		Object.entries(schema.properties).map(([k, p]) => {
			if (!(k in record)) return [k, p];
			choices.push(k);
			return [k, narrow(p, record[k], choices)];
		}),
	);
	choices.push("/");
	return { ...schema, properties };
}

/** Compiled narrowed schemas, by frame schema and branch choices: there are few, and compiling is slow. */
const narrowedValidators = new WeakMap<TSchema, Map<string, ReturnType<typeof Compile>>>();

/** One readable reason: the first error of the branch the frame chose, deepest first. */
function describe(schema: TSchema, value: unknown): string {
	const choices: string[] = [];
	const narrowed = narrow(schema as SchemaNode, value, choices);
	const key = choices.join(",");
	let cache = narrowedValidators.get(schema);
	if (!cache) {
		cache = new Map();
		narrowedValidators.set(schema, cache);
	}
	let validator = cache.get(key);
	if (!validator) {
		validator = Compile(narrowed as TSchema);
		// Bounded: the choices come from the schema's own finite branches and keys, but keep it so.
		if (cache.size < 1_000) cache.set(key, validator);
	}
	const errors = [...validator.Errors(value)];
	const best = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
	if (!best) return "invalid frame";
	const at = best.instancePath || "/";
	// Closed objects reject an unknown key by matching it against `false`.
	if (best.keyword === "boolean") return `unknown field ${at}`;
	return `${at} ${best.message}`;
}

function validate<T>(validators: Map<string, Validator>, side: string, value: unknown): T {
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		throw new ProtocolViolation(`${side} frame must be a JSON object`);
	}
	const type = (value as { type?: unknown }).type;
	const validator = typeof type === "string" ? validators.get(type) : undefined;
	if (!validator) throw new ProtocolViolation(`unknown ${side} frame type ${JSON.stringify(type)}`);
	if (!validator.check.Check(value)) {
		throw new ProtocolViolation(`invalid ${type} frame: ${describe(validator.schema, value)}`);
	}
	return value as T;
}

export const parseExtensionFrame = (value: unknown): ExtensionFrame =>
	validate<ExtensionFrame>(extensionValidators, "extension", value);
export const parseHostFrame = (value: unknown): HostFrame => validate<HostFrame>(hostValidators, "host", value);
