/**
 * The worktree routes, on the chamber's `/api/pi` app (behind its auth): make a worktree for a new session, and
 * look at, merge or remove the worktree a session works in. Which folder is acted on is never the client's to
 * say: it is the session's own folder, and only a worktree pier made (worktrees.json) is merged or removed.
 */
import { resolve } from "node:path";
import type { Context, Hono } from "hono";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import { WorktreeBodies } from "./wire.js";
import { WorktreeError, Worktrees } from "./worktrees.js";

export function worktreeRoutes(app: Hono, chamber: Chamber): Worktrees {
	const worktrees = new Worktrees(chamber.options.stateDir);

	app.post("/worktrees", jsonBody(WorktreeBodies.create), (c) =>
		answer(c, async () => {
			const b = c.req.valid("json");
			const cwd = resolve(chamber.options.defaultCwd, b.cwd ?? ".");
			return c.json({ worktree: await worktrees.create(cwd, b.branch) }, 201);
		}),
	);

	app.get("/sessions/:id/worktree", (c) =>
		answer(c, async () => {
			const { cwd } = await sessionOf(chamber, c.req.param("id"));
			return c.json({ worktree: (await worktrees.status(cwd)) ?? null });
		}),
	);

	app.post("/sessions/:id/worktree/merge", jsonBody(WorktreeBodies.merge), (c) =>
		answer(c, async () => {
			const id = c.req.param("id");
			const { cwd } = await idleSession(chamber, id, "merge");
			const b = c.req.valid("json");
			const merged = await worktrees.merge(cwd, b.commit ? { commit: b.commit } : {});
			return c.json(merged);
		}),
	);

	app.post("/sessions/:id/worktree/remove", jsonBody(WorktreeBodies.remove), (c) =>
		answer(c, async () => {
			const id = c.req.param("id");
			const { cwd } = await idleSession(chamber, id, "remove its worktree");
			const removed = await worktrees.remove(cwd, { force: c.req.valid("json").force === true });
			// The session's folder is gone: lists read its branch again (none now).
			chamber.events.publish("sessions.changed", { reason: "updated", id });
			return c.json(removed);
		}),
	);

	return worktrees;
}

/** A worktree refusal in the API's error shape; anything else goes on to the app's own error handler. */
async function answer(c: Context, run: () => Promise<Response>): Promise<Response> {
	try {
		return await run();
	} catch (error) {
		if (error instanceof WorktreeError) return jsonError(c, error.status, error.code, error.message);
		throw error;
	}
}

/** A session's folder and whether it works now: running or from the list (looking never starts it). */
async function sessionOf(chamber: Chamber, id: string): Promise<{ cwd: string; streaming: boolean }> {
	const live = chamber.liveSession(id);
	if (live) return live.summary();
	const found =
		(await chamber.list()).find((s) => s.id === id) ??
		(await chamber.list({ archived: true })).find((s) => s.id === id);
	if (!found) throw new WorktreeError(404, "not_found", `no session ${id}`);
	return found;
}

async function idleSession(chamber: Chamber, id: string, what: string): Promise<{ cwd: string }> {
	const session = await sessionOf(chamber, id);
	if (session.streaming)
		throw new WorktreeError(409, "busy", `The session is working: wait for it to finish (or stop it), then ${what}.`);
	return session;
}
