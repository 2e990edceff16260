/**
 * `/api/pi/audit`: the audit trail (src/audit/audit-log.ts), overall or for one session. `since` takes what
 * `pier audit --since` takes; `limit` keeps the newest decisions (oldest first, as the file holds them).
 */
import { Hono } from "hono";
import { auditFile, readAudit } from "../../audit/audit-log.js";
import { parseSince } from "../../audit/since.js";
import { jsonError } from "../http-errors.js";
import type { AuditView } from "./wire.js";

export const AUDIT_DEFAULT_LIMIT = 200;
export const AUDIT_MAX_LIMIT = 5000;
const KNOWN_QUERY = new Set(["session", "since", "limit"]);

export function auditRoutes(): Hono {
	const app = new Hono();
	app.get("/", (c) => {
		const query = c.req.queries();
		const unknown = Object.keys(query).find((k) => !KNOWN_QUERY.has(k));
		if (unknown)
			return jsonError(c, 400, "bad_request", `?${unknown}: unknown parameter (known: session, since, limit)`);
		const repeated = Object.entries(query).find(([, values]) => values.length > 1);
		if (repeated) return jsonError(c, 400, "bad_request", `?${repeated[0]}: give it once`);
		const session = c.req.query("session");
		if (session !== undefined && (session === "" || session.length > 200))
			return jsonError(c, 400, "bad_request", "?session: a session id (1 to 200 characters)");
		let since: Date | undefined;
		const sinceText = c.req.query("since");
		if (sinceText !== undefined) {
			const parsed = parseSince(sinceText);
			if (!(parsed instanceof Date)) return jsonError(c, 400, "bad_request", `?since: ${parsed.problem}`);
			since = parsed;
		}
		let limit = AUDIT_DEFAULT_LIMIT;
		const limitText = c.req.query("limit");
		if (limitText !== undefined) {
			if (!/^\d{1,7}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > AUDIT_MAX_LIMIT)
				return jsonError(c, 400, "bad_request", `?limit: a whole number from 1 to ${AUDIT_MAX_LIMIT}`);
			limit = Number(limitText);
		}
		const all = readAudit({ ...(since ? { since } : {}), ...(session !== undefined ? { session } : {}) });
		const view: AuditView = { entries: all.slice(-limit), total: all.length, file: auditFile() };
		return c.json(view);
	});
	return app;
}
