/**
 * `/api/pi/sessions/:id/changes…` (docs/chamber-api.md, "Changes"): the files the agent changed in a running
 * session, per turn and over the whole session, one file's diff, and revert, stage and commit. Reads never start a
 * session (409 not_open); every path a request names is held to the session's project (403 outside_project).
 */
import type { Context, Hono } from "hono";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import type { LiveSession } from "../live-session.js";
import { failure } from "../route-failure.js";
import { SessionError } from "../session-error.js";
import { CHANGES_ENTRY, ChangesError, commit, revert, type SessionHooks, stage } from "./actions.js";
import { projectPath } from "./project-path.js";
import { changesView, fileView, sessionSpans, spanOfRecord } from "./view.js";
import { ChangesBodies } from "./wire.js";

function hooksOf(live: LiveSession): SessionHooks {
	const session = live.pier.runtime.session;
	return {
		sessionId: live.id,
		streaming: session.isStreaming,
		note: (text, details) =>
			session.sendCustomMessage(
				{ customType: CHANGES_ENTRY, content: text, display: true, details },
				{ triggerTurn: false },
			),
	};
}

async function answer(c: Context, run: () => Promise<unknown>, status: 200 | 201 = 200): Promise<Response> {
	try {
		return c.json((await run()) as object, status);
	} catch (error) {
		if (error instanceof ChangesError) return jsonError(c, error.status, error.code, error.message);
		return failure(c, error);
	}
}

export function changesRoutes(app: Hono, chamber: Chamber): void {
	app.get("/sessions/:id/changes", (c) =>
		answer(c, async () => {
			const live = await chamber.running(c.req.param("id"));
			return changesView(live.changes, live.id);
		}),
	);

	// One file's change: over the whole session, or in one turn (`turn=N`).
	app.get("/sessions/:id/changes/file", (c) =>
		answer(c, async () => {
			const live = await chamber.running(c.req.param("id"));
			const path = c.req.query("path") ?? "";
			if (!path) throw new SessionError("bad_request", "path: required");
			const turnQuery = c.req.query("turn");
			const turnNumber = turnQuery === undefined ? undefined : Number(turnQuery);
			if (turnNumber !== undefined && !(Number.isInteger(turnNumber) && turnNumber > 0))
				throw new SessionError("bad_request", "turn: a turn number, 1 or more");
			const tracker = live.changes;
			// Held to the project before anything is looked up: a link out of it is refused, not reported absent.
			projectPath(tracker.root, path);
			return tracker.serial(async () => {
				const turns = tracker.store(live.id).turns();
				const span =
					turnNumber === undefined
						? sessionSpans(turns).find((s) => s.path === path)
						: (() => {
								const turn = turns.find((t) => t.turn === turnNumber);
								const record = turn?.files.find((f) => f.path === path);
								return turn && record ? spanOfRecord(turn, record) : undefined;
							})();
				if (!span)
					throw new SessionError(
						"not_found",
						`${path}: not changed by the agent${turnNumber ? ` in turn ${turnNumber}` : ""}`,
					);
				return { file: await fileView(tracker, live.id, span) };
			});
		}),
	);

	app.post("/sessions/:id/changes/revert", jsonBody(ChangesBodies.revert), (c) =>
		answer(c, async () => {
			const live = await chamber.get(c.req.param("id"));
			return revert(live.changes, hooksOf(live), c.req.valid("json"));
		}),
	);

	app.post("/sessions/:id/changes/stage", jsonBody(ChangesBodies.stage), (c) =>
		answer(c, async () => {
			const live = await chamber.get(c.req.param("id"));
			return { staged: await stage(live.changes, c.req.valid("json").paths) };
		}),
	);

	app.post("/sessions/:id/changes/commit", jsonBody(ChangesBodies.commit), (c) =>
		answer(
			c,
			async () => {
				const live = await chamber.get(c.req.param("id"));
				return commit(live.changes, c.req.valid("json").message);
			},
			201,
		),
	);
}
