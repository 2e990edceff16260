/**
 * The chamber's auth over HTTP (docs/chamber-api.md, "Auth"): the `/api/auth` routes, the middleware that
 * guards every other `/api` route, and the origin check for state-changing requests.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { parse as parseCookie } from "hono/utils/cookie";
import { jsonError } from "../http-errors.js";
import { LoginRateLimiter, WorkGate } from "./rate-limit.js";
import { credentialRoutes } from "./credential-routes.js";
import { type AuthStore, BROWSER_SESSION_TTL_MS, type BrowserCheck, SessionLimitError } from "./store.js";

export const SESSION_COOKIE = "pier_session";
/** The browser key returned by login and pairing; the page sends it with every request, next to the cookie. */
export const BROWSER_KEY_HEADER = "x-pier-key";
const MAX_BODY_BYTES = 16 * 1024;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Who sent the request; `id` names the credential (the credential list's id), which mints under it. */
export type Principal = { kind: "browser"; id: string } | { kind: "device"; id: string };
export type AuthVariables = { principal: Principal };
export type AuthEnv = { Variables: AuthVariables };

// Answer shapes of the routes, for the web app and other clients.
export interface AuthStatusResponse {
	authenticated: boolean;
	passwordConfigured: boolean;
}
/** Login and pairing: the cookie comes as Set-Cookie, the key in the body (the page keeps it in localStorage). */
export interface SignedInResponse {
	ok: true;
	key: string;
}
export interface AuthRoutesOptions {
	/** Defaults to 5 failures per 60 s per client key. */
	limiter?: LoginRateLimiter;
	/** Whose attempts count together; defaults to the socket's remote address ("local" when there is none). */
	clientKey?: (c: Context) => string;
	/** Password checks running or waiting at once, across all clients. */
	gate?: WorkGate;
	/** The addresses the daemon serves, once it listens (pairing links offer each). */
	urls?: () => string[];
}

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

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * With the cookie SameSite=Strict, requiring a JSON content type means a cross-site page can only reach a
 * state-changing route through a CORS preflight, which the daemon never grants; the Origin check catches
 * what remains (e.g. a same-site but different-host page).
 */
export function checkOrigin(): MiddlewareHandler {
	return async (c, next) => {
		if (!STATE_CHANGING.has(c.req.method)) return next();
		const origin = c.req.header("origin");
		if (origin !== undefined && !sameHost(origin, c.req.header("host") ?? new URL(c.req.url).host)) {
			return jsonError(c, 403, "bad_origin", "the request's Origin does not match its Host");
		}
		// DELETE carries no body, and no cross-site page can send one without a preflight.
		if (c.req.method !== "DELETE" && !isJsonContentType(c.req.header("content-type"))) {
			return jsonError(c, 415, "bad_request", "Content-Type must be application/json");
		}
		await next();
	};
}

/** The sub-app to mount at `/api/auth`. */
export function authRoutes(store: AuthStore, options: AuthRoutesOptions = {}): Hono<AuthEnv> {
	const limiter = options.limiter ?? new LoginRateLimiter();
	const clientKey = options.clientKey ?? defaultClientKey;
	const gate = options.gate ?? new WorkGate();
	const app = new Hono<AuthEnv>();

	app.use("*", async (c, next) => {
		await next();
		// Answers here carry secrets (cookies, tokens shown once) that no cache should keep.
		c.header("Cache-Control", "no-store");
	});
	app.use("*", checkOrigin());
	app.use(
		"*",
		bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => jsonError(c, 413, "bad_request", "body too large") }),
	);

	app.get("/status", (c) => {
		const body: AuthStatusResponse = {
			authenticated: authenticate(store, c) !== undefined,
			passwordConfigured: store.passwordConfigured,
		};
		return c.json(body);
	});

	app.post("/login", async (c) => {
		const key = clientKey(c);
		// Checked before anything else so a blocked client cannot keep probing the password.
		const verdict = limiter.check(key);
		if (!verdict.allowed) return rateLimited(c, verdict.retryAfterSeconds);
		const body = await readBody(c, ["password"]);
		if (body instanceof Response) return body;
		if (typeof body.password !== "string") return jsonError(c, 400, "bad_request", "password must be a string");
		if (!store.passwordConfigured) {
			return jsonError(c, 400, "no_password", "no UI password is configured; use a pairing link");
		}
		// Counted here, synchronously, before the hash: a check now and a count after the await let 185 of
		// 200 simultaneous guesses through. Nothing may await between this line and the verify being queued.
		const slot = limiter.reserve(key);
		if (!slot.allowed) return rateLimited(c, slot.retryAfterSeconds);
		const password = body.password;
		const right = await gate.run(() => store.verifyPassword(password));
		if (right === undefined) {
			// Not checked, so not counted against the client.
			slot.refund();
			c.header("Retry-After", "1");
			return jsonError(c, 503, "busy", "too many sign-ins at once; retry in 1 s");
		}
		if (!right) return jsonError(c, 401, "bad_password", "wrong password");
		slot.refund();
		return signIn(c, store);
	});

	app.post("/pair", async (c) => {
		const body = await readBody(c, ["token"]);
		if (body instanceof Response) return body;
		if (typeof body.token !== "string") return jsonError(c, 400, "bad_request", "token must be a string");
		const link = store.consumePairingToken(body.token);
		if (!link) return jsonError(c, 401, "bad_pairing_token", "the pairing link is unknown, used or expired");
		return signIn(c, store, { via: "link", lineage: link.lineage });
	});

	app.post("/logout", requireAuth(store), async (c) => {
		const body = await readBody(c, []);
		if (body instanceof Response) return body;
		store.revokeBrowserSession(getCookie(c, SESSION_COOKIE));
		deleteCookie(c, SESSION_COOKIE, cookieOptions(c));
		return c.json({ ok: true });
	});

	app.route("/", credentialRoutes(store, { urls: options.urls }));

	return app;
}

// ---- helpers ----------------------------------------------------------------------------------------

function defaultClientKey(c: Context): string {
	return (c.env as Partial<HttpBindings> | undefined)?.incoming?.socket?.remoteAddress ?? "local";
}

function rateLimited(c: Context, seconds: number): Response {
	c.header("Retry-After", String(seconds));
	return jsonError(c, 429, "rate_limited", `too many login attempts; retry in ${seconds} s`);
}

function signIn(
	c: Context,
	store: AuthStore,
	origin: { via: "password" | "link"; lineage?: string[] } = { via: "password" },
): Response {
	let session: { token: string; key: string };
	try {
		session = store.createBrowserSession(origin);
	} catch (error) {
		if (error instanceof SessionLimitError) return jsonError(c, 503, "session_limit", error.message);
		throw error;
	}
	setSessionCookie(c, session.token);
	const answer: SignedInResponse = { ok: true, key: session.key };
	return c.json(answer);
}

function cookieOptions(c: Context) {
	// Secure only over https: the default deployment is plain http on loopback, where a Secure cookie
	// would never be sent back.
	const https = new URL(c.req.url).protocol === "https:";
	return { httpOnly: true, sameSite: "Strict", path: "/", ...(https ? { secure: true } : {}) } as const;
}

function setSessionCookie(c: Context, token: string): void {
	setCookie(c, SESSION_COOKIE, token, { ...cookieOptions(c), maxAge: Math.floor(BROWSER_SESSION_TTL_MS / 1000) });
}

/** An empty body reads as `{}`; anything else must be a JSON object with only the `allowed` fields. */
export async function readBody(c: Context, allowed: readonly string[]): Promise<Record<string, unknown> | Response> {
	const text = await c.req.text();
	if (text.trim() === "") return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return jsonError(c, 400, "bad_request", "body must be valid JSON");
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
		return jsonError(c, 400, "bad_request", "body must be a JSON object");
	}
	const extra = Object.keys(parsed).find((k) => !allowed.includes(k));
	if (extra !== undefined) return jsonError(c, 400, "bad_request", `unexpected field ${JSON.stringify(extra)}`);
	return parsed as Record<string, unknown>;
}

/** The one rule for a JSON body's Content-Type (checkOrigin and json-body.ts both apply it). */
export function isJsonContentType(value: string | undefined): boolean {
	return value?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

function sameHost(origin: string, host: string): boolean {
	let url: URL;
	try {
		url = new URL(origin);
	} catch {
		// "null" (sandboxed frames, file://) and garbage never match.
		return false;
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") return false;
	try {
		// Parse Host with the origin's scheme so "localhost:80" equals "http://localhost".
		return new URL(`${url.protocol}//${host}`).host === url.host;
	} catch {
		return false;
	}
}
