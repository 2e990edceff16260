/**
 * The share-link routes under `/api/pi` (docs/chamber-api.md, "Share links"): create a link to one session, list
 * a session's live links, revoke one, and `GET /shares/current` for the page a link opened. Only an owner (a
 * signed-in browser or a device token) creates, lists and revokes; share-scope.ts keeps share tokens off these
 * routes at the auth boundary, and each route checks again.
 */
import { type Context, Hono } from "hono";
import type { AuthEnv } from "../auth/principal.js";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import { failure } from "../route-failure.js";
import { infoOf, type ShareLinks } from "./share-links.js";
import {
	type CreatedShare,
	SHARE_FRAGMENT,
	SHARE_TTL_DEFAULT_SECONDS,
	SHARE_TTL_MAX_SECONDS,
	ShareBodies,
	type ShareListResponse,
} from "./share-wire.js";

export function shareRoutes(shares: ShareLinks, chamber: Chamber): Hono<AuthEnv> {
	const app = new Hono<AuthEnv>();
	app.onError((error, c) => failure(c, error));

	app.post(
		"/sessions/:id/share",
		jsonBody(ShareBodies.create, `ttlSeconds: a whole number of seconds from 1 to ${SHARE_TTL_MAX_SECONDS}`),
		async (c) => {
			const refused = ownerOnly(c);
			if (refused) return refused;
			const id = c.req.param("id");
			// An unknown session is a 404 here, not a link to nothing.
			await chamber.view(id, { limit: 1 });
			const body = c.req.valid("json");
			let created: ReturnType<ShareLinks["create"]>;
			try {
				created = shares.create({
					sessionId: id,
					mode: body.mode,
					ttlMs: (body.ttlSeconds ?? SHARE_TTL_DEFAULT_SECONDS) * 1000,
					mintedBy: c.get("principal").id,
				});
			} catch (error) {
				if (error instanceof RangeError) return jsonError(c, 400, "share_limit", error.message);
				throw error;
			}
			const page = new URL("/", c.req.url);
			page.searchParams.set("s", id);
			page.hash = `${SHARE_FRAGMENT}=${created.token}`;
			const answer: CreatedShare = { ...infoOf(created.record), token: created.token, url: page.href };
			c.header("Cache-Control", "no-store");
			return c.json(answer, 201);
		},
	);

	app.get("/sessions/:id/shares", async (c) => {
		const refused = ownerOnly(c);
		if (refused) return refused;
		const answer: ShareListResponse = { shares: shares.list(c.req.param("id")) };
		return c.json(answer);
	});

	// What the link this page holds is: its session, its mode, when it ends.
	app.get("/shares/current", (c) => {
		const principal = c.get("principal");
		if (principal.kind !== "share") return jsonError(c, 404, "not_found", "this request carries no share link");
		const record = shares.byId(principal.id);
		return record ? c.json(infoOf(record)) : jsonError(c, 401, "unauthorized", "the share link ended");
	});

	app.delete("/shares/:shareId", (c) => {
		const refused = ownerOnly(c);
		if (refused) return refused;
		const id = c.req.param("shareId");
		return shares.revoke(id)
			? c.json({ ok: true, revoked: id })
			: jsonError(c, 404, "not_found", `no live share link ${id}`);
	});

	return app;
}

function ownerOnly(c: Context<AuthEnv>): Response | undefined {
	const principal = c.get("principal");
	if (principal.kind !== "share") return undefined;
	return jsonError(c, 403, "share_scope", `share link ${principal.id} cannot create, list or revoke share links`);
}
