/**
 * `GET /api/pi/sessions/:id/drawings?rows=a,b&width=N&expanded=0|1`: the drawings of rows an extension draws
 * (rows marked `drawn`, and `tool:<toolCallId>` for a marked tool call), at the page's width in columns snapped to
 * a bucket. Viewing never starts a session: a session that does not run has no renderer to ask.
 */
import { Hono } from "hono";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import type { DrawingsAnswer } from "../wire.js";
import { MAX_DRAWINGS_PER_REQUEST, snapWidth } from "./drawing-wire.js";

const MAX_ID_CHARS = 256;

/** The query, checked: the row ids, the bucket, expanded; or what is wrong with it. */
export function drawingsQuery(query: {
	rows?: string;
	width?: string;
	expanded?: string;
}): { ids: string[]; width: number; expanded: boolean } | { error: string } {
	const ids = (query.rows ?? "").split(",").filter(Boolean);
	if (ids.length === 0) return { error: "rows: give the row ids to draw, comma-separated (rows=a,b)" };
	if (ids.length > MAX_DRAWINGS_PER_REQUEST)
		return { error: `rows: at most ${MAX_DRAWINGS_PER_REQUEST} rows per request (got ${ids.length})` };
	if (ids.some((id) => id.length > MAX_ID_CHARS))
		return { error: `rows: a row id is at most ${MAX_ID_CHARS} characters` };
	const columns = Number(query.width);
	if (!Number.isInteger(columns) || columns < 1 || columns > 10_000)
		return { error: "width: the page's width in columns, a whole number from 1 to 10000" };
	if (query.expanded !== undefined && query.expanded !== "0" && query.expanded !== "1")
		return { error: "expanded: 0 or 1" };
	return { ids: [...new Set(ids)], width: snapWidth(columns), expanded: query.expanded === "1" };
}

export function drawingsRoutes(chamber: Chamber): Hono {
	const app = new Hono();
	app.get("/sessions/:id/drawings", async (c) => {
		const q = drawingsQuery({
			rows: c.req.query("rows"),
			width: c.req.query("width"),
			expanded: c.req.query("expanded"),
		});
		if ("error" in q) return jsonError(c, 400, "bad_request", q.error);
		const live = chamber.liveSession(c.req.param("id"));
		if (!live)
			return jsonError(
				c,
				409,
				"not_open",
				"the session does not run: its extensions' renderers draw only while it runs",
			);
		const drawings = await live.drawings.draw(q.ids, q.width, q.expanded);
		return c.json({ width: q.width, expanded: q.expanded, drawings } satisfies DrawingsAnswer);
	});
	return app;
}
