/**
 * The event stream's payloads, declared once as TypeBox schemas: `EventPayloads` (wire.ts) is their static type,
 * and the OpenAPI document publishes each one (`components.schemas.Event_<name>`) with the envelope around them.
 * A new event is a new entry here; the stream's emitter only accepts names and payloads this map types.
 */
import { Type } from "typebox";
import type { StyledLine } from "./tui/styled-text.js";
import { CUSTOM_CLOSE_REASONS, type CustomCloseReason, type CustomView } from "./ui/custom-wire.js";
import type { AppSurface, NormalizedCard } from "./ui/descriptors.js";
import {
	CommandView,
	DialogRequest,
	DismissReason,
	type OpenOverlay,
	QueueView,
	SessionSummary,
	SessionUsage,
	SessionView,
	TranscriptRow,
	WidgetPlacement,
	described,
} from "./wire-views.js";

const Empty = Type.Object({}, { additionalProperties: false });
const Card = described<NormalizedCard>("A normalized extension card (src/chamber/ui/descriptors.ts).");
const App = described<AppSurface>("An extension's app surface (src/chamber/ui/descriptors.ts).");
const Lines = Type.Array(described<StyledLine>("A styled line of a drawing (src/chamber/tui/styled-text.ts)."));

export const EVENT_SCHEMAS = {
	"session.snapshot": SessionView,
	"session.state": Type.Object({ streaming: Type.Boolean() }),
	"session.info": Type.Object({ session: SessionSummary }),
	"session.model": Type.Object({ model: Type.Optional(Type.String()), thinkingLevel: Type.String() }),
	"session.commands": Type.Object({ commands: Type.Array(CommandView) }),
	"session.usage": SessionUsage,
	"session.queue": QueueView,
	/** The session moved to another entry of its tree (`/tree`): its rows changed, fetch the view again. */
	"session.branch": Type.Object({ leafId: Type.Union([Type.String(), Type.Null()]) }),
	/** A user bash command (`!cmd`) runs; its row arrives when it is recorded. */
	"bash.start": Type.Object({ bashId: Type.String(), command: Type.String(), excludeFromContext: Type.Boolean() }),
	"bash.update": Type.Object({ bashId: Type.String(), text: Type.String() }),
	"bash.end": Type.Object({ bashId: Type.String(), exitCode: Type.Optional(Type.Number()), cancelled: Type.Boolean() }),
	/** An extension moved this chamber session to another pi session (new, fork, switch): follow `id`. */
	"session.replaced": Type.Object({ id: Type.String() }),
	"sessions.changed": Type.Object({
		reason: Type.Union([
			Type.Literal("created"),
			Type.Literal("renamed"),
			Type.Literal("deleted"),
			Type.Literal("updated"),
		]),
		id: Type.String(),
		session: Type.Optional(SessionSummary),
	}),
	"agent.start": Empty,
	"agent.end": Empty,
	"message.start": Type.Object({ draftId: Type.String(), role: Type.Literal("assistant") }),
	"message.delta": Type.Object({
		draftId: Type.String(),
		kind: Type.Union([Type.Literal("text"), Type.Literal("thinking")]),
		delta: Type.String(),
	}),
	"message.end": Type.Object({ draftId: Type.String() }),
	"tool.start": Type.Object({ toolCallId: Type.String(), toolName: Type.String(), args: Type.Unknown() }),
	"tool.update": Type.Object({ toolCallId: Type.String(), text: Type.String() }),
	"tool.end": Type.Object({
		toolCallId: Type.String(),
		toolName: Type.String(),
		text: Type.String(),
		isError: Type.Boolean(),
	}),
	"transcript.row": Type.Object({ row: TranscriptRow, draftId: Type.Optional(Type.String()) }),
	/** These rows' drawings changed: ask for them again. */
	"transcript.drawn": Type.Object({ ids: Type.Array(Type.String()) }),
	"extension.ui": Type.Union([
		Type.Object({ id: Type.String(), card: Card }),
		Type.Object({ id: Type.String(), removed: Type.Literal(true) }),
	]),
	"extension.app": Type.Union([
		Type.Object({ appId: Type.String(), app: App }),
		Type.Object({ appId: Type.String(), removed: Type.Literal(true) }),
	]),
	"extension.status": Type.Object({ key: Type.String(), text: Type.Optional(Type.String()) }),
	"extension.widget": Type.Object({
		key: Type.String(),
		lines: Type.Optional(Type.Array(Type.String())),
		placement: Type.Optional(WidgetPlacement),
	}),
	"extension.title": Type.Object({ title: Type.Optional(Type.String()) }),
	"extension.notify": Type.Object({
		message: Type.String(),
		level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]),
	}),
	"extension.editor": Type.Object({ text: Type.String() }),
	"extension.dialog": DialogRequest,
	"extension.dialog.dismiss": Type.Object({ requestId: Type.String(), reason: DismissReason }),
	/** The overlay opened or changed (whole); `draft` puts a failed submit back. */
	"extension.overlay": Type.Union([
		Type.Object({
			overlay: described<OpenOverlay>("The extension overlay on screen (src/extensions/host/overlay-rows.ts)."),
			draft: Type.Optional(Type.String()),
		}),
		Type.Object({ closed: Type.String() }),
	]),
	"extension.error": Type.Object({ message: Type.String(), source: Type.Optional(Type.String()) }),
	"extension.custom.open": Type.Object({
		custom: described<CustomView>("An open `ctx.ui.custom` component (ui/custom-wire.ts)."),
	}),
	"extension.custom.frame": Type.Object({ customId: Type.String(), columns: Type.Number(), lines: Lines }),
	"extension.custom.close": Type.Object({
		customId: Type.String(),
		reason: Type.Unsafe<CustomCloseReason>(Type.Union(CUSTOM_CLOSE_REASONS.map((r) => Type.Literal(r)))),
	}),
	heartbeat: Empty,
} as const;
