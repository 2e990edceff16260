/**
 * The chamber as one HTTP app: auth, `/api/pi`, the event stream and the web app's files. `chamberApp`
 * is plain Hono (tests call it directly); `startChamber` serves it on a socket.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, isIP } from "node:net";
import { basename, extname, join, normalize, resolve, sep } from "node:path";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { credentialRoutes } from "./auth/credential-routes.js";
import { authRoutes, checkOrigin } from "./auth/http.js";
import { type AuthEnv, requestAuthenticated, requireAuth } from "./auth/principal.js";
import { removeDaemonRecord, writeDaemonRecord } from "./auth/pairing-inbox.js";
import { AuthStore } from "./auth/store.js";
import { Chamber, type ChamberOptions } from "./chamber.js";
import { connectionPools } from "./connection-pools.js";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS, httpServerOptions } from "./connections.js";
import type { EventChannel } from "./events/channel.js";
import { SseClient } from "./events/sse.js";
import { jsonError } from "./http-errors.js";
import { mcpSignInCallback, signInsOf } from "./mcp-signin.js";
import { openApiRoute } from "./openapi/route.js";
import { API_VERSION, API_VERSION_HEADER } from "./openapi/version.js";
import { mountPush } from "./push/routes.js";
import { failure } from "./route-failure.js";
import { BAD_ROW_LIMIT, piRoutes, rowLimit } from "./routes.js";
import { shareRoutes } from "./share/share-routes.js";

export interface ChamberServerOptions extends ChamberOptions {
	/** Stored (as a scrypt hash) when given; an existing hash stays otherwise. */
	password?: string;
	heartbeatMs?: number;
	/** The built web app; defaults to dist/web next to this module. */
	webDir?: string;
	/** Timeouts and the socket cap (connections.ts); tests shrink them. */
	connections?: Partial<ConnectionLimits>;
}

type NodeBindings = { incoming: IncomingMessage; outgoing: ServerResponse };

const DEFAULT_WEB_DIR = fileURLToPath(new URL("../../web", import.meta.url));
const MAX_API_BODY = 1024 * 1024;

export async function chamberApp(options: ChamberServerOptions) {
	const auth = new AuthStore(join(options.stateDir, "auth.json"));
	if (options.password !== undefined) await auth.ensurePassword(options.password);
	const chamber = new Chamber(options);
	const heartbeatMs = options.heartbeatMs ?? 15_000;
	const heartbeats = new Set<NodeJS.Timeout>();

	const app = new Hono<AuthEnv & { Bindings: NodeBindings }>();
	app.onError((error, c) => failure(c, error));
	// Issue 35, the published API: which version of the contract an answer follows (docs/chamber-api.md), on
	// every /api answer, refusals included.
	app.use("/api/*", async (c, next) => {
		await next();
		c.header(API_VERSION_HEADER, API_VERSION);
	});
	// On loopback, only loopback names may address the daemon: a page whose DNS name was rebound to 127.0.0.1
	// would otherwise be same-origin with it.
	let allowedHosts: Set<string> | undefined;
	app.use("*", async (c, next) => {
		const host = c.req.header("host")?.toLowerCase();
		if (allowedHosts && (!host || !allowedHosts.has(host))) {
			return jsonError(c, 403, "bad_host", `this chamber answers only to ${[...allowedHosts].join(", ")}`);
		}
		await next();
	});
	app.use("*", async (c, next) => {
		await next();
		c.header("X-Content-Type-Options", "nosniff");
		c.header("Referrer-Policy", "no-referrer");
	});
	let servedUrls: string[] = [];
	const urls = () => servedUrls;
	app.route("/api/auth", authRoutes(auth, { urls, routes: credentialRoutes(auth, { urls }) }));
	app.use("/api/pi/*", requireAuth(auth), checkOrigin());
	app.use(
		"/api/pi/*",
		bodyLimit({ maxSize: MAX_API_BODY, onError: (c) => jsonError(c, 413, "bad_request", "body too large") }),
	);
	// Notifications (push/): `/api/push`, and which devices have a page open (watched on `/api/pi/events`).
	const push = mountPush(app, { stateDir: options.stateDir, auth, chamber });

	/** SSE needs the raw socket: bounded buffering is measured on Node's own write queue. */
	// biome-ignore lint/suspicious/noExplicitAny: any app env; only the Node bindings are read
	const stream = (c: Context<any>, channel: EventChannel, snapshot?: () => never, release?: () => void) => {
		const res = (c.env as NodeBindings | undefined)?.outgoing;
		if (!res) return jsonError(c, 500, "internal", "the event stream needs the Node server");
		const cursor = c.req.header("last-event-id") ?? c.req.query("since");
		const since = cursor !== undefined && /^\d+$/.test(cursor) ? Number(cursor) : undefined;
		const client = new SseClient(res);
		const detach = channel.attach(client, since, snapshot);
		const beat = setInterval(() => {
			if (!client.write(channel.unnumbered("heartbeat", {}))) stop();
		}, heartbeatMs);
		heartbeats.add(beat);
		const stop = () => {
			clearInterval(beat);
			heartbeats.delete(beat);
			detach();
			release?.();
		};
		res.on("close", stop);
		return RESPONSE_ALREADY_SENT;
	};

	app.get("/api/pi/events", async (c) => {
		const id = c.req.query("session");
		if (!id) return stream(c, chamber.events);
		const limit = rowLimit(c.req.query("rows"));
		if (limit === null) return jsonError(c, 400, "bad_request", BAD_ROW_LIMIT);
		// A session that does not run is followed from its file: looking at it starts nothing (cold-stream.ts).
		const followed = await chamber.stream(id, limit);
		return stream(c, followed.channel, followed.snapshot as () => never, followed.release);
	});
	// Issue 35, share links: POST /sessions/:id/share, GET /sessions/:id/shares, DELETE /shares/:id (share/).
	app.route("/api/pi", shareRoutes(auth.shares, chamber));
	app.route("/api/pi", piRoutes(chamber));
	mcpSignInCallback(app, signInsOf(chamber));
	// Issue 35, the published API: the OpenAPI document of this very app (no credential: it holds no data).
	app.get(
		"/api/openapi.json",
		openApiRoute(() => app.routes),
	);
	app.all("/api/*", (c) => jsonError(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}`));

	const webDir = options.webDir ?? DEFAULT_WEB_DIR;
	app.get("*", (c) => serveWebFile(c, webDir));

	return {
		app,
		chamber,
		auth,
		servesAt: (urls: string[]) => {
			servedUrls = urls;
		},
		allowHosts: (hosts: string[] | undefined) => {
			allowedHosts = hosts ? new Set(hosts.map((h) => h.toLowerCase())) : undefined;
		},
		close: async () => {
			for (const beat of heartbeats) clearInterval(beat);
			await push.close();
			auth.shares.close();
			await chamber.shutdown();
			auth.flush();
		},
	};
}

const CONTENT_TYPES: Record<string, string> = {
	".html": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
	".png": "image/png",
	".ico": "image/x-icon",
	".json": "application/json",
	".webmanifest": "application/manifest+json",
	".map": "application/json",
	".woff2": "font/woff2",
};

/** The app's page: its own scripts only; app surfaces are frames of the shell below. */
const CSP = [
	"default-src 'self'",
	"script-src 'self'",
	"style-src 'self' 'unsafe-inline'",
	"img-src 'self' data:",
	"connect-src 'self'",
	"frame-src 'self'",
	"frame-ancestors 'none'",
	"base-uri 'none'",
	"form-action 'self'",
].join("; ");

/**
 * The app-surface shell (web/public/app-frame.html), inside a sandbox="allow-scripts" frame: inline scripts (the
 * extension's) but no network at all, framed only by the chamber's own page.
 */
const APP_FRAME_CSP = [
	"default-src 'none'",
	"script-src 'unsafe-inline'",
	"style-src 'unsafe-inline'",
	"img-src data:",
	"frame-ancestors 'self'",
	"base-uri 'none'",
	"form-action 'none'",
	// Loaded on its own (not as the page's sandboxed frame), the shell still gets an opaque origin: nothing
	// it runs can read the chamber origin's storage, where the browser key lives.
	"sandbox allow-scripts",
].join("; ");

/** Files at fixed names (web/vite.config.ts emits the worker; the manifest and icons are web/public's). */
const UNHASHED = new Set(["/sw.js", "/manifest.webmanifest"]);

function serveWebFile(c: Context, webDir: string): Response {
	const root = resolve(webDir);
	let path: string;
	try {
		path = decodeURIComponent(c.req.path);
	} catch {
		return c.text("bad path", 400);
	}
	const wanted = normalize(join(root, path));
	const inside = wanted === root || wanted.startsWith(root + sep);
	const file = inside && existsSync(wanted) && statSync(wanted).isFile() ? wanted : join(root, "index.html");
	// Unknown asset paths are 404s; any other path is a client-side route and gets the app.
	if (file !== wanted && extname(path) && !path.endsWith(".html")) return c.text("not found", 404);
	if (!existsSync(file)) return c.text("pier: the web app is not built (run npm run build)", 503);
	const type = CONTENT_TYPES[extname(file)] ?? "application/octet-stream";
	const headers: Record<string, string> = { "content-type": type };
	if (type.startsWith("text/html")) {
		headers["content-security-policy"] = basename(file) === "app-frame.html" ? APP_FRAME_CSP : CSP;
		headers["cache-control"] = "no-cache";
	} else if (UNHASHED.has(path)) {
		// The service worker and the manifest keep their names across builds: always asked again.
		headers["cache-control"] = "no-cache";
	} else if (file.includes(`${sep}assets${sep}`)) {
		headers["cache-control"] = "public, max-age=31536000, immutable";
	}
	return new Response(readFileSync(file), { headers });
}

/** Bound to every interface: the machine's LAN addresses reach the page too. */
export function lanUrls(host: string, port: number): string[] {
	if (host !== "0.0.0.0" && host !== "::") return [];
	const urls: string[] = [];
	for (const addresses of Object.values(networkInterfaces())) {
		for (const a of addresses ?? []) {
			if (a.internal || (a.family !== "IPv4" && host === "0.0.0.0")) continue;
			if (a.family === "IPv6" && a.address.startsWith("fe80")) continue;
			urls.push(`http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${port}/`);
		}
	}
	return urls;
}

/** 127.0.0.0/8, ::1 and localhost: addresses no other machine can reach. */
export function isLoopback(host: string): boolean {
	if (host === "localhost" || host === "::1") return true;
	return isIP(host) === 4 && host.startsWith("127.");
}

export interface RunningChamber {
	url: string;
	/** `url`, then the LAN addresses when bound to every interface (0.0.0.0, ::). */
	urls: string[];
	port: number;
	pairingUrl: string;
	close(): Promise<void>;
	chamber: Chamber;
	auth: AuthStore;
}

export async function startChamber(
	options: ChamberServerOptions & { host: string; port: number },
): Promise<RunningChamber> {
	const built = await chamberApp(options);
	const limits = { ...DEFAULT_CONNECTION_LIMITS, ...options.connections };
	// Sockets are sorted by whether their requests' credentials verify, before any route runs.
	const pools = connectionPools({ ...limits, maxAuthenticated: limits.maxConnections }, (req) =>
		requestAuthenticated(built.auth, req.headers),
	);
	const server = serve({
		fetch: built.app.fetch,
		hostname: options.host,
		port: options.port,
		serverOptions: httpServerOptions(limits),
		createServer: ((serverOptions: object, listener: Parameters<typeof pools.wrap>[0]) =>
			createServer(serverOptions, pools.wrap(listener))) as typeof createServer,
	}) as Server;
	pools.attach(server);
	await new Promise<void>((done, fail) => {
		server.once("listening", done);
		server.once("error", fail);
	});
	const { port } = server.address() as AddressInfo;
	built.chamber.watchSessions();
	if (isLoopback(options.host)) {
		built.allowHosts([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`]);
	}
	const host = options.host.includes(":") ? `[${options.host}]` : options.host;
	const url = `http://${host}:${port}/`;
	const pairing = built.auth.createPairingToken(10 * 60_000);
	const urls = [url, ...lanUrls(options.host, port)];
	built.servesAt(urls);
	// `pier pair` finds the daemon of this state directory, and the addresses to print, here.
	writeDaemonRecord(options.stateDir, { pid: process.pid, urls, startedAt: new Date().toISOString() });
	return {
		url,
		urls,
		port,
		pairingUrl: `${url}#pair=${pairing.token}`,
		chamber: built.chamber,
		auth: built.auth,
		close: async () => {
			removeDaemonRecord(options.stateDir);
			await built.close();
			await new Promise<void>((done) => {
				server.close(() => done());
				// EventSource clients hold their sockets open; end them so close() finishes.
				(server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
			});
		},
	};
}
