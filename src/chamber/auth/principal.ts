/**
 * Who is asking: the session cookie with its browser key, or a bearer device token, checked once at the boundary.
 * The routes take the answer from `requireAuth` (`c.get("principal")`); the connection pools sort sockets by it.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { parse as parseCookie } from "hono/utils/cookie";
import type { HttpBindings } from "@hono/node-server";
import { jsonError } from "../http-errors.js";
import { type SharePrincipal, SHARE_TOKEN_PREFIX } from "../share/share-links.js";
import { shareRefusal } from "../share/share-scope.js";
import { cutOnShareEnd } from "../share/share-streams.js";
import type { AuthStore, BrowserCheck } from "./store.js";

export const SESSION_COOKIE = "pier_session";
/** The browser key returned by login and pairing; the page sends it with every request, next to the cookie. */
export const BROWSER_KEY_HEADER = "x-pier-key";
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Who sent the request; `id` names the credential (the credential list's id), which mints under it. A share link
 * (share/) speaks for one session only, and reaches only what share-scope.ts allows.
 */
export type Principal = { kind: "browser"; id: string } | { kind: "device"; id: string } | SharePrincipal;
export type AuthVariables = { principal: Principal };
export type AuthEnv = { Variables: AuthVariables };

type Identity =
	| { principal: Principal }
	| { status: 401 | 429; code: string; message: string; retryAfterSeconds?: number };

/** Who sent the request: the session cookie with its browser key, or a bearer device token. */
function identify(store: AuthStore, c: Context): Identity {
	const cookie = getCookie(c, SESSION_COOKIE);
	const browser: { verdict: BrowserCheck; id?: string } =
		cookie === undefined ? { verdict: "no_session" } : store.identifyBrowser(cookie, c.req.header(BROWSER_KEY_HEADER));
	if (browser.verdict === "ok" && browser.id !== undefined) return { principal: { kind: "browser", id: browser.id } };
	const bearer = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
	const device = bearer === undefined ? undefined : store.verifyDeviceToken(bearer);
	if (device) return { principal: { kind: "device", id: device.id } };
	if (bearer?.startsWith(SHARE_TOKEN_PREFIX)) return identifyShare(store, bearer, clientAddress(c));
	if (browser.verdict === "bad_key") {
		// The cookie reaches every server on this host (cookies ignore the port); the key does not.
		return {
			status: 401,
			code: "browser_key_required",
			message: "the session cookie needs its browser key (X-Pier-Key); sign in again if this page lost it",
		};
	}
	return { status: 401, code: "unauthorized", message: "sign in or send a device token" };
}

/**
 * A share token: a live link is its principal. A token we never issued is a guess, counted per client address
 * with the login limiter's budget; once over it, the address is refused before any token is looked at.
 */
function identifyShare(store: AuthStore, token: string, address: string): Identity {
	const blocked = store.shares.guesses.check(address);
	if (!blocked.allowed) {
		return {
			status: 429,
			code: "rate_limited",
			message: `too many unknown share tokens; retry in ${blocked.retryAfterSeconds} s`,
			retryAfterSeconds: blocked.retryAfterSeconds,
		};
	}
	const link = store.shares.check(token);
	if (link?.ok) {
		const { id, sessionId, mode } = link.record;
		return { principal: { kind: "share", id, sessionId, mode } };
	}
	if (link) return { status: 401, code: `share_${link.ended}`, message: `this share link was ${link.ended}` };
	store.shares.guesses.fail(address);
	return { status: 401, code: "unauthorized", message: "unknown share link" };
}

function clientAddress(c: Context): string {
	return (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress ?? "local";
}

/**
 * Whether a raw request comes from a signed-in client, for sorting its socket before any route runs
 * (connection-pools.ts). A live browser cookie counts without its key: a page load and its scripts carry only the
 * cookie, and a signed-in browser must be able to reload under a flood. Routes still ask for both. Verifying has
 * the same effects as a route's check: a browser's first use is marked.
 */
export function requestAuthenticated(store: AuthStore, headers: IncomingHttpHeaders): boolean {
	const cookie = parseCookie(headers.cookie ?? "", SESSION_COOKIE)[SESSION_COOKIE];
	const key = headers[BROWSER_KEY_HEADER];
	if (cookie !== undefined) {
		const verdict = store.checkBrowserSession(cookie, typeof key === "string" ? key : undefined);
		if (verdict === "ok" || (verdict === "bad_key" && key === undefined)) return true;
	}
	const bearer = BEARER.exec(headers.authorization ?? "")?.[1];
	if (bearer === undefined) return false;
	return store.verifyDeviceToken(bearer) !== undefined || store.shares.check(bearer)?.ok === true;
}

export function authenticate(store: AuthStore, c: Context): Principal | undefined {
	const who = identify(store, c);
	return "principal" in who ? who.principal : undefined;
}

export function requireAuth(store: AuthStore): MiddlewareHandler<AuthEnv> {
	return async (c, next) => {
		const who = identify(store, c);
		if (!("principal" in who)) {
			if (who.retryAfterSeconds !== undefined) c.header("Retry-After", String(who.retryAfterSeconds));
			return jsonError(c, who.status, who.code, who.message);
		}
		const principal = who.principal;
		if (principal.kind === "share") {
			// The one check for every route behind auth: a share link reaches only its allow-list (share-scope.ts).
			const refusal = shareRefusal(principal, c.req.method, c.req.path, c.req.query("session"));
			if (refusal) return jsonError(c, 403, "share_scope", refusal);
			cutOnShareEnd(store.shares, principal, c);
		}
		c.set("principal", principal);
		await next();
	};
}
