import type { HttpBindings } from "@hono/node-server";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { jsonError } from "../http-errors.js";
import { type AuthEnv, authenticate, requireAuth, SESSION_COOKIE } from "./principal.js";
import { LoginRateLimiter, WorkGate } from "./rate-limit.js";
import { isJsonContentType, readBody } from "./request-body.js";
import { type AuthStore, BROWSER_SESSION_TTL_MS, SessionLimitError } from "./store.js";
import { pierCommand } from "../pier-command.js";
import type { AuthStatusResponse, SignedInResponse } from "./auth-wire.js";

const MAX_BODY_BYTES = 16 * 1024;

// Answer shapes of the routes, for the web app and other clients (declared as schemas in auth-wire.ts).
export type { AuthStatusResponse, SignedInResponse } from "./auth-wire.js";
export interface AuthRoutesOptions {
	/** Defaults to 5 failures per 60 s per client key. */
	limiter?: LoginRateLimiter;
	/** Whose attempts count together; defaults to the socket's remote address ("local" when there is none). */
	clientKey?: (c: Context) => string;
	/** Password checks running or waiting at once, across all clients. */
	gate?: WorkGate;
	/** The addresses the daemon serves, once it listens (pairing links offer each). */
	urls?: () => string[];
	/** More routes behind this app's cache, origin and body checks (the credential routes). */
	routes?: Hono<AuthEnv>;
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
			pairCommand: `${pierCommand()} pair`,
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

	if (options.routes) app.route("/", options.routes);

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
