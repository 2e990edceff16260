/**
 * Signing a session in to an OAuth MCP server from the browser, with the redirect back to the chamber:
 *
 * - `POST /api/pi/sessions/:id/mcp/:server/signin` (signed in, like every `/api/pi` route) starts pi's sign-in
 *   (agent/mcp/signin.ts) with this daemon's callback as the redirect URI and answers the authorization URL the
 *   browser opens; or, when pi's stored refresh token was enough, the server, reconnected.
 * - `GET /api/mcp-oauth/callback` is where the authorization server sends the browser back. It is a top-level
 *   navigation from another site, so it carries no browser key: what it may do is bounded by the `state` instead.
 *   Only a `state` pi issued for a sign-in started here, not yet used and not older than ten minutes, finishes a
 *   sign-in (its PKCE verifier never left the daemon); any other request changes nothing. The page it answers says
 *   how the sign-in ended and links back to the chamber; it never shows a code or a token.
 */
import type { Context, Env, Hono } from "hono";
import type { McpSignIn } from "../agent/mcp/signin.js";
import type { McpServerView } from "../agent/mcp/shapes.js";

export const CALLBACK_PATH = "/api/mcp-oauth/callback";
const TTL_MS = 10 * 60_000;
/** Sign-ins waiting for their browser at once; the oldest is dropped beyond this. */
const MAX_PENDING = 32;

type Complete = Extract<McpSignIn, { kind: "redirect" }>["complete"];

interface Pending {
	server: string;
	complete: Complete;
	expiresAt: number;
}

/** The sign-ins this daemon started, by the `state` pi issued for each. */
export class PendingSignIns {
	private pending = new Map<string, Pending>();

	add(state: string, server: string, complete: Complete): void {
		const now = Date.now();
		for (const [key, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(key);
		while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
		this.pending.set(state, { server, complete, expiresAt: now + TTL_MS });
	}

	/** The sign-in of `state`, taken: a state finishes at most one sign-in. */
	take(state: string): Pending | undefined {
		const entry = this.pending.get(state);
		this.pending.delete(state);
		return entry && entry.expiresAt > Date.now() ? entry : undefined;
	}
}

const perChamber = new WeakMap<object, PendingSignIns>();

/** The one list of sign-ins of a daemon's chamber, shared by the route that starts them and the callback. */
export function signInsOf(chamber: object): PendingSignIns {
	let signIns = perChamber.get(chamber);
	if (!signIns) {
		signIns = new PendingSignIns();
		perChamber.set(chamber, signIns);
	}
	return signIns;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page<E extends Env>(c: Context<E>, status: 200 | 400 | 502, title: string, message: string): Response {
	c.header("Content-Security-Policy", "default-src 'none'");
	c.header("Cache-Control", "no-store");
	return c.html(
		`<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
			`<h1 data-testid="mcp-signin-result">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
			`<p><a href="/" data-testid="back-to-chamber">Back to the chamber</a></p>`,
		status,
	);
}

/** The daemon's callback route. Mounted outside `/api/pi`: the browser arrives here from the authorization server. */
export function mcpSignInCallback<E extends Env>(app: Hono<E>, signIns: PendingSignIns): void {
	app.get(CALLBACK_PATH, async (c) => {
		const state = c.req.query("state");
		const signIn = state ? signIns.take(state) : undefined;
		if (!state || !signIn)
			return page(c, 400, "Unknown or expired sign-in", "Start the sign-in again from the chamber's MCP view.");
		const name = signIn.server;
		const error = c.req.query("error");
		if (error) {
			const detail = c.req.query("error_description") ?? error;
			return page(c, 400, `Sign-in to MCP server "${name}" was refused`, detail.slice(0, 500));
		}
		const code = c.req.query("code");
		if (!code) return page(c, 400, `Sign-in to MCP server "${name}" failed`, "The answer carried no code.");
		const iss = c.req.query("iss");
		let server: McpServerView;
		try {
			server = await signIn.complete({ code, state, ...(iss ? { iss } : {}) });
		} catch (failure) {
			return page(c, 502, `Sign-in to MCP server "${name}" failed`, (failure as Error).message);
		}
		return page(c, 200, `Signed in to MCP server "${name}"`, `It is ${server.stateText}. You can close this tab.`);
	});
}

/** Where the authorization server sends the browser back: this daemon, at the address the browser uses for it. */
export function callbackUrl(requestUrl: string): string {
	return new URL(CALLBACK_PATH, requestUrl).href;
}
