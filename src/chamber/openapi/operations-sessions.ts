/**
 * The event stream and the sessions (routes.ts): entries of operations.ts.
 */
import { Type } from "typebox";
import type { ExtensionListView } from "../extension-list.js";
import { Bodies } from "../wire.js";
import {
	described,
	ModelView,
	QueueView,
	SessionView,
	TranscriptRow,
	TrashedSession,
	TreeNodeView,
	TrustView,
} from "../wire-views.js";
import { type Operation, Ok, OneSession, Sessions, SessionQuery, Rows } from "./operation.js";

export const SESSION_OPERATIONS = {
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
} as const satisfies Record<string, Operation>;
