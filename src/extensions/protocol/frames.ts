/**
 * Protocol v1: every frame, both directions, declared once. Each schema both validates (unknown fields are
 * rejected everywhere, as in rpi) and types the TypeScript side (`Static`). The frames' contents live by job in
 * registrations.ts, invocations.ts, ui-requests.ts and actions.ts; this module re-exports them so importers
 * name one module for the wire.
 */
import { type Static, type TSchema, Type } from "typebox";
import { RuntimeAction } from "./actions.js";
import { CAPABILITIES, UI_CAPABILITIES } from "./capabilities.js";
import { describeFrameError } from "./frame-errors.js";
import { HostRequest } from "./invocations.js";
import { type LazyValidator, lazyValidator } from "./lazy-validator.js";
import { Registration } from "./registrations.js";
import { closed, Json, literals, Opt, type StaticOf, tagged } from "./schema-kit.js";
import { UiRequest } from "./ui-requests.js";

export * from "./actions.js";
export * from "./invocations.js";
export * from "./registrations.js";
export { ThinkingLevel } from "./schema-kit.js";
export * from "./ui-requests.js";

export const PROTOCOL_VERSION = 1;

// ── shared pieces ────────────────────────────────────────────────────────────

export const InstanceId = closed({ extensionId: Type.String(), generation: Type.Integer({ minimum: 0 }) });
export const Mode = literals(["tui", "rpc", "json", "print"]);
const CapabilitySchema = literals(CAPABILITIES);
const UiCapabilitySchema = literals(UI_CAPABILITIES);
export type Mode = Static<typeof Mode>;

export const ProtocolErrorSchema = closed({ code: Type.String(), message: Type.String() });
export const ProtocolResult = Type.Union([
	tagged("status", "success", { value: Opt(Json) }),
	tagged("status", "failure", { error: ProtocolErrorSchema }),
]);
export type ProtocolResult = Static<typeof ProtocolResult>;

export const CapabilityManifest = closed({
	id: Type.String(),
	name: Type.String(),
	version: Type.String(),
	capabilities: Opt(Type.Array(CapabilitySchema)),
	uiCapabilities: Opt(Type.Array(UiCapabilitySchema)),
});
export type CapabilityManifest = Static<typeof CapabilityManifest>;

// ── runtime requests (extension → host): UI and session actions ─────────────

export const RuntimeRequest = Type.Union([
	tagged("kind", "ui", { ui: closed({ request: UiRequest, timeoutMs: Opt(Type.Integer({ minimum: 0 })) }) }),
	tagged("kind", "action", { action: RuntimeAction }),
]);
export type RuntimeRequest = Static<typeof RuntimeRequest>;

// ── frames ───────────────────────────────────────────────────────────────────

/** Host → extension frames, by `type`. */
export const HOST_FRAMES = {
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
export type HostFrame = StaticOf<typeof HOST_FRAMES>;

/** Extension → host frames, by `type`. */
export const EXTENSION_FRAMES = {
	hello: tagged("type", "hello", { protocolVersion: Type.Integer(), manifest: CapabilityManifest }),
	register: tagged("type", "register", { registration: Registration }),
	unregister_provider: tagged("type", "unregister_provider", { id: Type.String() }),
	response: tagged("type", "response", { id: Type.String(), result: ProtocolResult }),
	update: tagged("type", "update", { id: Type.String(), value: Json }),
	request: tagged("type", "request", { id: Type.String(), request: RuntimeRequest }),
	cancel: tagged("type", "cancel", { id: Type.String() }),
};
export type ExtensionFrame = StaticOf<typeof EXTENSION_FRAMES>;

export class ProtocolViolation extends Error {
	override name = "ProtocolViolation";
}

type Validator = { schema: TSchema; check: LazyValidator<TSchema> };
/** Each frame type's validator is compiled when a frame of that type first arrives (lazy-validator.ts). */
function compileAll(schemas: Record<string, TSchema>): Map<string, Validator> {
	return new Map(Object.entries(schemas).map(([k, schema]) => [k, { schema, check: lazyValidator(schema) }]));
}
const hostValidators = compileAll(HOST_FRAMES);
const extensionValidators = compileAll(EXTENSION_FRAMES);

function validate<T>(validators: Map<string, Validator>, side: string, value: unknown): T {
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		throw new ProtocolViolation(`${side} frame must be a JSON object`);
	}
	const type = (value as { type?: unknown }).type;
	const validator = typeof type === "string" ? validators.get(type) : undefined;
	if (!validator) throw new ProtocolViolation(`unknown ${side} frame type ${JSON.stringify(type)}`);
	if (!validator.check.Check(value)) {
		throw new ProtocolViolation(`invalid ${type} frame: ${describeFrameError(validator.schema, value)}`);
	}
	return value as T;
}

export const parseExtensionFrame = (value: unknown): ExtensionFrame =>
	validate<ExtensionFrame>(extensionValidators, "extension", value);
export const parseHostFrame = (value: unknown): HostFrame => validate<HostFrame>(hostValidators, "host", value);
