/**
 * `/api/pi`: the chamber's session API. A route's body is validated before it runs by middleware from its wire
 * schema (json-body.ts); the route calls the Chamber or a LiveSession and answers JSON. Failures, whether from
 * validation or a domain error mapped by `failure`, are `{"error":{code,message}}` (http-errors.ts).
 */
import { Hono } from "hono";
import { agentDir } from "../agent/paths.js";
import { availableModels } from "../agent/session-factory.js";
import type { Chamber } from "./chamber.js";
import { changesRoutes } from "./changes/routes.js";
import { extensionList } from "./extension-list.js";
import { filesRoutes } from "./files/routes.js";
import { auditRoutes } from "./audit/audit-routes.js";
import { permissionRoutes } from "./audit/permission-routes.js";
import { grantRoutes } from "./grant-routes.js";
import { packageRoutes } from "./packages/routes.js";
import { mcpAppRoutes } from "./mcp-apps/routes.js";
import { mcpRoutes } from "./mcp-routes.js";
import { worktreeRoutes } from "./worktrees/routes.js";
import { drawingsRoutes } from "./tui/drawings-route.js";
import { paletteRoutes } from "./tui/palette-route.js";
import { providerRoutes, thinkingLevelsOf } from "./provider-routes.js";
import { jsonError } from "./http-errors.js";
import { jsonBody } from "./json-body.js";
import { failure } from "./route-failure.js";
import { terminalRoutes } from "./terminal/routes.js";
import { Bodies, type ModelView } from "./wire.js";

/** `rows=N` / `limit=N`: a positive count, or absent for everything; `null` when it is neither. */
export function rowLimit(value: string | undefined): number | undefined | null {
	if (value === undefined) return undefined;
	const n = Number(value);
	return Number.isInteger(n) && n > 0 && n <= 100_000 ? n : null;
}

export const BAD_ROW_LIMIT = "rows/limit must be a whole number from 1 to 100000";

export function piRoutes(chamber: Chamber): Hono {
	const app = new Hono();
	app.onError((error, c) => failure(c, error));

	app.get("/sessions", async (c) => {
		const q = c.req.query("q");
		if (q !== undefined && q.length > 256) return jsonError(c, 400, "bad_request", "q: at most 256 characters");
		const archived = c.req.query("archived") === "1";
		return c.json({ sessions: await chamber.list({ archived, ...(q ? { query: q } : {}) }) });
	});

	app.post("/sessions", jsonBody(Bodies.createSession), async (c) => {
		const b = c.req.valid("json");
		const session = await chamber.create(b);
		return c.json({ session: session.summary() }, 201);
	});

	app.get("/sessions/:id", async (c) => {
		const limit = rowLimit(c.req.query("rows"));
		if (limit === null) return jsonError(c, 400, "bad_request", BAD_ROW_LIMIT);
		const { olderRows, ...view } = await chamber.view(c.req.param("id"), limit === undefined ? {} : { limit });
		return c.json(olderRows > 0 ? { ...view, olderRows } : view);
	});

	app.get("/sessions/:id/rows", async (c) => {
		const limit = rowLimit(c.req.query("limit"));
		if (limit === null) return jsonError(c, 400, "bad_request", BAD_ROW_LIMIT);
		const before = c.req.query("before");
		const page = { ...(limit !== undefined ? { limit } : {}), ...(before ? { before } : {}) };
		const { rows, olderRows } = await chamber.view(c.req.param("id"), page);
		return c.json({ rows, olderRows });
	});

	// The one way to start a session without acting on it: viewing it (GET, the event stream) never does.
	app.post("/sessions/:id/open", async (c) => {
		return c.json({ session: (await chamber.get(c.req.param("id"))).summary() });
	});

	// A copy of a session's file as a new session: a session held by another pier goes on in the copy.
	app.post("/sessions/:id/copy", async (c) => c.json({ session: await chamber.copy(c.req.param("id")) }, 201));

	app.patch("/sessions/:id", jsonBody(Bodies.rename), async (c) => {
		const b = c.req.valid("json");
		return c.json({ session: await chamber.rename(c.req.param("id"), b.name) });
	});

	app.delete("/sessions/:id", async (c) => c.json({ ok: true, ...(await chamber.delete(c.req.param("id"))) }));

	app.get("/trash", async (c) => c.json({ sessions: await chamber.trash() }));

	app.post("/sessions/:id/restore", async (c) => c.json({ session: await chamber.restore(c.req.param("id")) }));

	app.post("/sessions/:id/archive", jsonBody(Bodies.archive), async (c) => {
		const b = c.req.valid("json");
		return c.json({ session: await chamber.archive(c.req.param("id"), b.archived) });
	});

	app.post("/sessions/:id/prompt", jsonBody(Bodies.prompt), async (c) => {
		const b = c.req.valid("json");
		const { text, ...extra } = b;
		await (await chamber.get(c.req.param("id"))).actions.prompt(text, extra);
		return c.json({ ok: true }, 202);
	});

	// pi's habits (`@`, /tree, /fork, /export, the queue): reads of a running session, actions open it.
	app.get("/sessions/:id/files", async (c) => {
		const q = c.req.query("q") ?? "";
		if (q.length > 256) return jsonError(c, 400, "bad_request", "q: at most 256 characters");
		return c.json({ files: (await chamber.running(c.req.param("id"))).actions.files(q) });
	});

	app.get("/sessions/:id/tree", async (c) =>
		c.json({ nodes: (await chamber.running(c.req.param("id"))).actions.tree() }),
	);

	// A user message's image, as JSON: the page draws it from a data: URL (its CSP allows no other source).
	app.get("/sessions/:id/images/:entryId/:n", async (c) => {
		const n = Number(c.req.param("n"));
		if (!Number.isInteger(n) || n < 0 || n > 63) return jsonError(c, 400, "bad_request", "n: an image index, 0 to 63");
		return c.json(await chamber.image(c.req.param("id"), c.req.param("entryId"), n));
	});

	app.post("/sessions/:id/tree", jsonBody(Bodies.tree), async (c) => {
		const b = c.req.valid("json");
		const { entryId, ...options } = b;
		await (await chamber.get(c.req.param("id"))).actions.navigate(entryId, options);
		return c.json({ ok: true });
	});

	app.post("/sessions/:id/fork", jsonBody(Bodies.fork), async (c) => {
		const b = c.req.valid("json");
		return c.json(await (await chamber.get(c.req.param("id"))).actions.fork(b.entryId), 201);
	});

	app.get("/sessions/:id/export", async (c) => {
		const { name, html } = await (await chamber.running(c.req.param("id"))).actions.exportHtml();
		return c.body(html, 200, {
			"content-type": "text/html; charset=utf-8",
			"content-disposition": `attachment; filename="${name.replace(/[^\w.-]/g, "_")}"`,
			// The file is pi's page with the session's own content: never rendered as the chamber's origin.
			"content-security-policy": "sandbox",
			"x-content-type-options": "nosniff",
		});
	});

	app.delete("/sessions/:id/queue", async (c) => c.json((await chamber.get(c.req.param("id"))).actions.clearQueue()));

	for (const [path, run] of [
		["steer", (s, text) => s.actions.steer(text)],
		["follow-up", (s, text) => s.actions.followUp(text)],
	] as const satisfies readonly (readonly [
		string,
		(s: Awaited<ReturnType<Chamber["get"]>>, t: string) => void | Promise<void>,
	])[]) {
		app.post(`/sessions/:id/${path}`, jsonBody(Bodies.text), async (c) => {
			const b = c.req.valid("json");
			await run(await chamber.get(c.req.param("id")), b.text);
			return c.json({ ok: true }, 202);
		});
	}

	app.post("/sessions/:id/abort", async (c) => {
		await (await chamber.get(c.req.param("id"))).actions.abort();
		return c.json({ ok: true });
	});

	app.post("/sessions/:id/command", jsonBody(Bodies.command), async (c) => {
		const b = c.req.valid("json");
		await (await chamber.get(c.req.param("id"))).actions.command(b.command, b.args);
		return c.json({ ok: true }, 202);
	});

	// An app surface's click: the daemon, not the page, decides which commands that app may run.
	app.post("/sessions/:id/apps/:appId/command", jsonBody(Bodies.command), async (c) => {
		const b = c.req.valid("json");
		await (await chamber.get(c.req.param("id"))).actions.appCommand(c.req.param("appId"), b.command, b.args);
		return c.json({ ok: true }, 202);
	});

	// A card's button, in the transcript or the panel dock: only the card's own buttons, for its extension's commands.
	app.post("/sessions/:id/cards/:entryId/command", jsonBody(Bodies.command), async (c) => {
		const b = c.req.valid("json");
		const where = { entry: c.req.param("entryId") };
		await (await chamber.get(c.req.param("id"))).actions.cardCommand(where, b.command, b.args);
		return c.json({ ok: true }, 202);
	});

	app.post("/sessions/:id/panels/:panelId/command", jsonBody(Bodies.command), async (c) => {
		const b = c.req.valid("json");
		const where = { panel: c.req.param("panelId") };
		await (await chamber.get(c.req.param("id"))).actions.cardCommand(where, b.command, b.args);
		return c.json({ ok: true }, 202);
	});

	app.put("/sessions/:id/model", jsonBody(Bodies.model), async (c) => {
		const b = c.req.valid("json");
		await (await chamber.get(c.req.param("id"))).actions.setModel(b.model);
		return c.json({ model: b.model });
	});

	app.put("/sessions/:id/thinking", jsonBody(Bodies.thinking), async (c) => {
		const b = c.req.valid("json");
		(await chamber.get(c.req.param("id"))).actions.setThinkingLevel(b.level);
		return c.json({ thinkingLevel: b.level });
	});

	app.put("/sessions/:id/editor", jsonBody(Bodies.editor), async (c) => {
		const b = c.req.valid("json");
		// Typing is not an action: a session that does not run has no extension to read the draft, and is not
		// started for it (the page keeps the draft and mirrors it again once the session runs).
		const live = chamber.liveSession(c.req.param("id"));
		if (!live) return c.json({ ok: true, live: false });
		live.ui.setDraft(b.text);
		return c.json({ ok: true });
	});

	app.post("/sessions/:id/dialogs/:requestId", jsonBody(Bodies.answer), async (c) => {
		const b = c.req.valid("json");
		const outcome = (await chamber.get(c.req.param("id"))).ui.answer(c.req.param("requestId"), b);
		return outcome.ok ? c.json({ ok: true }) : jsonError(c, outcome.status, outcome.code, outcome.message);
	});

	app.post("/sessions/:id/overlay", jsonBody(Bodies.overlay), async (c) => {
		const outcome = (await chamber.get(c.req.param("id"))).ui.overlay.input(c.req.valid("json"));
		return outcome.ok ? c.json({ ok: true }) : jsonError(c, outcome.status, outcome.code, outcome.message);
	});

	app.post("/sessions/:id/ui/custom/:customId/input", jsonBody(Bodies.customInput), async (c) => {
		const live = chamber.liveSession(c.req.param("id"));
		const outcome = live
			? live.ui.customInput(c.req.param("customId"), c.req.valid("json"))
			: ({ ok: false, status: 404, code: "not_found", message: "the session does not run" } as const);
		return outcome.ok ? c.json({ ok: true }) : jsonError(c, outcome.status, outcome.code, outcome.message);
	});

	app.post("/sessions/:id/ui/custom/:customId/cancel", jsonBody(Bodies.empty), async (c) => {
		const live = chamber.liveSession(c.req.param("id"));
		const outcome = live
			? live.ui.cancelCustom(c.req.param("customId"))
			: ({ ok: false, status: 404, code: "not_found", message: "the session does not run" } as const);
		return outcome.ok ? c.json({ ok: true }) : jsonError(c, outcome.status, outcome.code, outcome.message);
	});

	app.get("/models", async (c) => {
		// A running session's own registry also holds what its extensions provide (bridge/providers.ts); a
		// GET never starts one. Otherwise read fresh each time: models.json and auth.json may change.
		const id = c.req.query("session");
		const live = id ? await chamber.running(id).catch(() => undefined) : undefined;
		const models: ModelView[] = (live ? live.actions.availableModels() : await availableModels()).map((m) => ({
			ref: `${m.provider}/${m.id}`,
			name: m.name ?? m.id,
			provider: m.provider,
			reasoning: m.reasoning === true,
			thinkingLevels: thinkingLevelsOf(m),
		}));
		return c.json({ models });
	});

	app.get("/extensions", async (c) => {
		const id = c.req.query("session");
		if (!id) return jsonError(c, 400, "bad_request", "session: required");
		// A GET: lists what a running session has, never starts one to find out.
		return c.json(await extensionList(await chamber.running(id)));
	});

	mcpRoutes(app, chamber);
	mcpAppRoutes(app, chamber);
	// Issue 33, Changes: what the agent changed in the project, revert, stage, commit.
	changesRoutes(app, chamber);
	// Issue 33, worktrees: POST /worktrees, GET /sessions/:id/worktree, POST …/worktree/merge and …/remove.
	worktreeRoutes(app, chamber);

	app.get("/projects/trust", (c) => c.json(chamber.trustOf(c.req.query("cwd") ?? ".")));

	app.put("/projects/trust", jsonBody(Bodies.trust), async (c) => {
		const b = c.req.valid("json");
		return c.json(chamber.decideTrust(b.cwd, b.trusted, { parent: b.parent === true }));
	});

	app.route(
		"/grants",
		grantRoutes(agentDir, () => chamber.extensionPaths),
	);
	// Issue 34, the package catalog: search, details, inspect, install, update, remove, enabled.
	app.route("/packages", packageRoutes({ agentDir, defaultCwd: chamber.options.defaultCwd }));
	app.route("/", paletteRoutes());
	app.route("/", drawingsRoutes(chamber));
	app.route("/", filesRoutes(chamber));
	app.route("/", terminalRoutes(chamber, chamber.terminals));
	// Issue 34, audit trail: GET /audit; the Permissions view's rules: GET/POST/DELETE /permissions.
	app.route("/audit", auditRoutes());
	app.route("/permissions", permissionRoutes(chamber.options.defaultCwd));
	app.route("/providers", providerRoutes({ refreshSessions: (ids) => chamber.refreshModels(ids) }));

	app.get("/ui-settings", (c) => c.json(chamber.uiSettings()));

	app.put("/ui-settings", jsonBody(Bodies.uiSettings), async (c) => {
		const b = c.req.valid("json");
		return c.json(chamber.saveUiSettings(b));
	});

	return app;
}
