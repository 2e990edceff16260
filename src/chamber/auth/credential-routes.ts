/**
 * The `/api/auth` routes that mint, list and revoke credentials (docs/chamber-api.md, "Auth"). Whatever a request
 * mints is minted through the credential it came with, and revoking a credential revokes what was minted through
 * it (lineage.ts).
 */
import { type Context, Hono } from "hono";
import { deleteCookie } from "hono/cookie";
import { jsonError } from "../http-errors.js";
import { type AuthEnv, requireAuth, SESSION_COOKIE } from "./principal.js";
import { readBody } from "./request-body.js";
import { GenerationLimitError } from "./lineage.js";
import type { AuthStore } from "./store.js";
import type {
	CreatedDeviceTokenResponse,
	CredentialListResponse,
	DeviceTokenListResponse,
	PairingLinkResponse,
	RevokedResponse,
} from "./auth-wire.js";

export const PAIRING_TTL_DEFAULT_SECONDS = 600;
export const PAIRING_TTL_MAX_SECONDS = 3600;
const MAX_TOKEN_NAME_LENGTH = 100;

// Answer shapes, declared as schemas in auth-wire.ts.
export type {
	CreatedDeviceTokenResponse,
	CredentialListResponse,
	DeviceTokenListResponse,
	PairingLinkResponse,
	RevokedResponse,
} from "./auth-wire.js";

export function credentialRoutes(store: AuthStore, options: { urls?: () => string[] }): Hono<AuthEnv> {
	const app = new Hono<AuthEnv>();
	app.use("*", requireAuth(store));

	app.post("/pairing-links", async (c) => {
		const body = await readBody(c, ["ttlSeconds"]);
		if (body instanceof Response) return body;
		const ttl = body.ttlSeconds ?? PAIRING_TTL_DEFAULT_SECONDS;
		if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 1 || ttl > PAIRING_TTL_MAX_SECONDS) {
			return jsonError(c, 400, "bad_request", `ttlSeconds must be an integer from 1 to ${PAIRING_TTL_MAX_SECONDS}`);
		}
		return minting(c, () => {
			const urls = options.urls?.() ?? [];
			const link = store.createPairingToken(ttl * 1000, c.get("principal"));
			const answer: PairingLinkResponse = { ...link, ...(urls.length ? { urls } : {}) };
			return c.json(answer);
		});
	});

	app.get("/tokens", (c) => {
		const answer: DeviceTokenListResponse = { tokens: store.listDeviceTokens() };
		return c.json(answer);
	});

	app.post("/tokens", async (c) => {
		const body = await readBody(c, ["name"]);
		if (body instanceof Response) return body;
		const name = typeof body.name === "string" ? body.name.trim() : "";
		if (!name || name.length > MAX_TOKEN_NAME_LENGTH) {
			return jsonError(c, 400, "bad_request", `name must be a string of 1 to ${MAX_TOKEN_NAME_LENGTH} characters`);
		}
		return minting(c, () => {
			const created: CreatedDeviceTokenResponse = store.createDeviceToken(name, c.get("principal"));
			return c.json(created);
		});
	});

	app.delete("/tokens/:id", (c) => {
		const id = c.req.param("id");
		const revoked = store.listDeviceTokens().some((t) => t.id === id) ? store.revokeCredential(id) : undefined;
		return revoked ? answerRevoked(c, revoked) : jsonError(c, 404, "not_found", "no such device token");
	});

	app.get("/credentials", (c) => {
		const answer: CredentialListResponse = { credentials: store.listCredentials(), current: c.get("principal").id };
		return c.json(answer);
	});

	app.delete("/credentials/:id", (c) => {
		const revoked = store.revokeCredential(c.req.param("id"));
		return revoked ? answerRevoked(c, revoked) : jsonError(c, 404, "not_found", "no such credential");
	});

	return app;
}

/** Runs `mint`, turning the store's refusals (a bound, a lineage too deep) into 400s that say which. */
function minting(c: Context<AuthEnv>, mint: () => Response): Response {
	try {
		return mint();
	} catch (error) {
		if (error instanceof GenerationLimitError) return jsonError(c, 400, "generation_limit", error.message);
		if (error instanceof RangeError) return jsonError(c, 400, "bad_request", error.message);
		throw error;
	}
}

function answerRevoked(c: Context<AuthEnv>, revoked: string[]): Response {
	// A browser that revoked itself (or what it descends from) drops its cookie too.
	if (revoked.includes(c.get("principal").id)) deleteCookie(c, SESSION_COOKIE, { path: "/" });
	const answer: RevokedResponse = { ok: true, revoked };
	return c.json(answer);
}
