/**
 * Who is asking: the session cookie with its browser key, or a bearer device token, checked once at the boundary.
 * The routes take the answer from `requireAuth` (`c.get("principal")`); the connection pools sort sockets by it.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { parse as parseCookie } from "hono/utils/cookie";
import { jsonError } from "../http-errors.js";
import type { AuthStore, BrowserCheck } from "./store.js";

export const SESSION_COOKIE = "pier_session";
/** The browser key returned by login and pairing; the page sends it with every request, next to the cookie. */
export const BROWSER_KEY_HEADER = "x-pier-key";
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Who sent the request; `id` names the credential (the credential list's id), which mints under it. */
export type Principal = { kind: "browser"; id: string } | { kind: "device"; id: string };
export type AuthVariables = { principal: Principal };
export type AuthEnv = { Variables: AuthVariables };

type Identity = { principal: Principal } | { code: "unauthorized" | "browser_key_required"; message: string };

/** Who sent the request: the session cookie with its browser key, or a bearer device token. */
function identify(store: AuthStore, c: Context): Identity {
	const cookie = getCookie(c, SESSION_COOKIE);
	const browser: { verdict: BrowserCheck; id?: string } =
		cookie === undefined ? { verdict: "no_session" } : store.identifyBrowser(cookie, c.req.header(BROWSER_KEY_HEADER));
	if (browser.verdict === "ok" && browser.id !== undefined) return { principal: { kind: "browser", id: browser.id } };
	const bearer = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
	const device = bearer === undefined ? undefined : store.verifyDeviceToken(bearer);
	if (device) return { principal: { kind: "device", id: device.id } };
	if (browser.verdict === "bad_key") {
		// The cookie reaches every server on this host (cookies ignore the port); the key does not.
		return {
			code: "browser_key_required",
			message: "the session cookie needs its browser key (X-Pier-Key); sign in again if this page lost it",
		};
	}
	return { code: "unauthorized", message: "sign in or send a device token" };
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
	return bearer !== undefined && store.verifyDeviceToken(bearer) !== undefined;
}

export function authenticate(store: AuthStore, c: Context): Principal | undefined {
	const who = identify(store, c);
	return "principal" in who ? who.principal : undefined;
}

export function requireAuth(store: AuthStore): MiddlewareHandler<AuthEnv> {
	return async (c, next) => {
		const who = identify(store, c);
		if (!("principal" in who)) return jsonError(c, 401, who.code, who.message);
		c.set("principal", who.principal);
		await next();
	};
}
