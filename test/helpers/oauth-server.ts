/**
 * A local OAuth 2.1 authorization server on 127.0.0.1, written in the test suite: its metadata (RFC 8414) at
 * `/.well-known/oauth-authorization-server`, dynamic client registration (RFC 7591) at `/register`, a sign-in page
 * at `/authorize` (authorization code with PKCE S256 only, `state` required, redirect URIs exactly as registered)
 * whose "Allow" button redirects back with a code, and `/token` (code with its verifier, refresh token). The tokens
 * it issues are what its MCP server (mcp-http.ts) accepts. `approve` is the browser stand-in of the CLI tests: it
 * opens the sign-in page and follows the "Allow" link and the redirect over plain HTTP.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface OAuthServer {
	issuer: string;
	/** Access tokens issued so far. */
	accessTokens: Set<string>;
	/** Every redirect URI a client registered. */
	registeredRedirects: string[];
	/** The browser stand-in: opens `authorizationUrl`, presses Allow, follows the redirect; answers the last page. */
	approve(authorizationUrl: string): Promise<{ status: number; body: string }>;
	close(): Promise<void>;
	[Symbol.asyncDispose](): Promise<void>;
}

interface Grant {
	clientId: string;
	redirectUri: string;
	challenge: string;
	resource?: string;
}

const token = () => randomBytes(24).toString("base64url");

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
	return new Promise((resolve, reject) => {
		let body = "";
		request.setEncoding("utf8");
		request.on("data", (chunk: string) => (body += chunk));
		request.on("end", () => resolve(new URLSearchParams(body)));
		request.on("error", reject);
	});
}

function json(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
	response.end(JSON.stringify(body));
}

function page(response: ServerResponse, status: number, html: string): void {
	response.writeHead(status, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html>${html}`);
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startOAuthServer(): Promise<OAuthServer> {
	let issuer = "";
	const clients = new Map<string, string[]>();
	const pending = new Map<string, Grant & { state: string }>();
	const codes = new Map<string, Grant>();
	const refreshTokens = new Set<string>();
	const accessTokens = new Set<string>();
	const registeredRedirects: string[] = [];

	const issue = () => {
		const access = token();
		const refresh = token();
		accessTokens.add(access);
		refreshTokens.add(refresh);
		return { access_token: access, token_type: "Bearer", expires_in: 3600, refresh_token: refresh };
	};

	const server = createServer(async (request, response) => {
		const url = new URL(request.url ?? "/", issuer);
		if (request.method === "GET" && url.pathname === "/.well-known/oauth-authorization-server") {
			json(response, 200, {
				issuer,
				authorization_endpoint: `${issuer}/authorize`,
				token_endpoint: `${issuer}/token`,
				registration_endpoint: `${issuer}/register`,
				response_types_supported: ["code"],
				grant_types_supported: ["authorization_code", "refresh_token"],
				code_challenge_methods_supported: ["S256"],
				token_endpoint_auth_methods_supported: ["none"],
			});
			return;
		}
		if (request.method === "POST" && url.pathname === "/register") {
			let body = "";
			for await (const chunk of request) body += chunk;
			const metadata = JSON.parse(body) as { redirect_uris?: string[]; client_name?: string };
			const redirects = metadata.redirect_uris ?? [];
			if (redirects.length === 0) return json(response, 400, { error: "invalid_redirect_uri" });
			const clientId = `client-${token()}`;
			clients.set(clientId, redirects);
			registeredRedirects.push(...redirects);
			return json(response, 201, {
				...metadata,
				client_id: clientId,
				token_endpoint_auth_method: "none",
				client_id_issued_at: Math.floor(Date.now() / 1000),
			});
		}
		if (request.method === "GET" && url.pathname === "/authorize") {
			const q = url.searchParams;
			const clientId = q.get("client_id") ?? "";
			const redirectUri = q.get("redirect_uri") ?? "";
			// Never redirect to a URI the client did not register: show the error here instead.
			if (!clients.get(clientId)?.includes(redirectUri))
				return page(response, 400, "<h1>Unknown client or redirect URI</h1>");
			const state = q.get("state");
			const challenge = q.get("code_challenge");
			if (q.get("response_type") !== "code" || !state || !challenge || q.get("code_challenge_method") !== "S256")
				return page(response, 400, "<h1>Bad authorization request (code, state and PKCE S256 required)</h1>");
			const ticket = token();
			const resource = q.get("resource") ?? undefined;
			pending.set(ticket, { clientId, redirectUri, challenge, state, ...(resource ? { resource } : {}) });
			return page(
				response,
				200,
				`<title>Test authorization server</title><h1>Sign in to the test server</h1>` +
					`<p>${escapeHtml(clientId)} asks for access.</p><a id="allow" href="/approve?request=${ticket}">Allow</a>`,
			);
		}
		if (request.method === "GET" && url.pathname === "/approve") {
			const grant = pending.get(url.searchParams.get("request") ?? "");
			if (!grant) return page(response, 400, "<h1>Unknown or used authorization request</h1>");
			pending.delete(url.searchParams.get("request")!);
			const code = token();
			codes.set(code, grant);
			const back = new URL(grant.redirectUri);
			back.searchParams.set("code", code);
			back.searchParams.set("state", grant.state);
			response.writeHead(302, { location: back.href }).end();
			return;
		}
		if (request.method === "POST" && url.pathname === "/token") {
			const form = await readForm(request);
			if (form.get("grant_type") === "refresh_token") {
				const refresh = form.get("refresh_token") ?? "";
				if (!refreshTokens.delete(refresh)) return json(response, 400, { error: "invalid_grant" });
				return json(response, 200, issue());
			}
			const grant = codes.get(form.get("code") ?? "");
			codes.delete(form.get("code") ?? "");
			const verifier = form.get("code_verifier") ?? "";
			const challenge = createHash("sha256").update(verifier).digest("base64url");
			if (
				form.get("grant_type") !== "authorization_code" ||
				!grant ||
				grant.clientId !== form.get("client_id") ||
				grant.redirectUri !== form.get("redirect_uri") ||
				grant.challenge !== challenge
			)
				return json(response, 400, { error: "invalid_grant" });
			return json(response, 200, issue());
		}
		json(response, 404, { error: "not_found" });
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

	const approve = async (authorizationUrl: string) => {
		const signIn = await (await fetch(authorizationUrl)).text();
		const allow = /id="allow" href="([^"]+)"/.exec(signIn)?.[1];
		if (!allow) throw new Error(`the sign-in page has no Allow link:\n${signIn}`);
		const redirect = await fetch(new URL(allow, issuer), { redirect: "manual" });
		const location = redirect.headers.get("location");
		if (redirect.status !== 302 || !location) throw new Error(`Allow did not redirect (${redirect.status})`);
		const landed = await fetch(location);
		return { status: landed.status, body: await landed.text() };
	};
	const close = () =>
		new Promise<void>((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		});
	return { issuer, accessTokens, registeredRedirects, approve, close, [Symbol.asyncDispose]: close };
}
