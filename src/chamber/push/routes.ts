/**
 * `/api/push`: the VAPID public key, this device's push subscription and its notification settings. "This device"
 * is the credential of the request (a signed-in browser, or a device token): a device sees and changes only its
 * own record, and the record goes when the credential is revoked or signs out (store.ts).
 */
import { ECDH } from "node:crypto";
import { isIP } from "node:net";
import type { Context, Hono as HonoApp } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Static, Type } from "typebox";
import { checkOrigin } from "../auth/http.js";
import { type AuthEnv, requireAuth } from "../auth/principal.js";
import type { AuthStore } from "../auth/store.js";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import type { PushDeviceView } from "./notice.js";
import { PushService } from "./service.js";
import type { PushTarget } from "./store.js";

const closed = { additionalProperties: false } as const;
const B64URL = "^[A-Za-z0-9_-]+={0,2}$";

export const PushBodies = {
	subscribe: Type.Object(
		{
			endpoint: Type.String({ minLength: 1, maxLength: 2048 }),
			// What `PushSubscription.toJSON()` sends; the expiry is the push service's business.
			expirationTime: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
			keys: Type.Object(
				{
					p256dh: Type.String({ maxLength: 128, pattern: B64URL }),
					auth: Type.String({ maxLength: 64, pattern: B64URL }),
				},
				closed,
			),
		},
		closed,
	),
	settings: Type.Object({ finished: Type.Boolean(), waiting: Type.Boolean() }, closed),
	empty: Type.Object({}, closed),
};

/** Why an endpoint is refused, or undefined: https, or http on loopback (a local push service, as in the tests). */
export function endpointProblem(endpoint: string): string | undefined {
	let url: URL;
	try {
		url = new URL(endpoint);
	} catch {
		return "endpoint: not a URL";
	}
	if (url.username || url.password) return "endpoint: a push service URL carries no user name or password";
	if (url.protocol === "https:") return undefined;
	const host = url.hostname.replace(/^\[|\]$/g, "");
	const loopback = host === "localhost" || host === "::1" || (isIP(host) === 4 && host.startsWith("127."));
	if (url.protocol === "http:" && loopback) return undefined;
	return "endpoint: must be an https: URL (push services are), or http: on loopback";
}

/** Why a subscription's keys are refused: p256dh must be a P-256 point (65 bytes), auth 16 bytes. */
export function keysProblem(keys: PushTarget["keys"]): string | undefined {
	const point = Buffer.from(keys.p256dh, "base64url");
	try {
		if (point.length !== 65 || point[0] !== 4) throw new Error("length");
		// Decompressing checks that the point is on the curve.
		ECDH.convertKey(point, "prime256v1", undefined, undefined, "compressed");
	} catch {
		return "keys.p256dh: must be an uncompressed P-256 public key (65 bytes, base64url)";
	}
	if (Buffer.from(keys.auth, "base64url").length !== 16) return "keys.auth: must be 16 bytes, base64url";
	return undefined;
}

function viewOf(push: PushService, credential: string): PushDeviceView {
	const record = push.store.get(credential);
	return {
		settings: record.settings,
		subscribed: record.subscription !== undefined,
		...(record.subscription ? { pushService: new URL(record.subscription.endpoint).origin } : {}),
	};
}

export function pushRoutes(push: PushService): Hono<AuthEnv> {
	const app = new Hono<AuthEnv>();
	const me = (c: Context<AuthEnv>) => c.get("principal").id;
	// A revoked or signed-out device's record is gone before anyone reads or changes records.
	app.use("*", async (c, next) => {
		push.prune();
		await next();
		c.header("Cache-Control", "no-store");
	});

	app.get("/vapid-key", (c) => c.json({ publicKey: push.publicKey() }));

	app.get("/settings", (c) => c.json(viewOf(push, me(c))));

	app.put("/settings", jsonBody(PushBodies.settings), (c) => {
		const id = me(c);
		if (!push.store.hasRoomFor(id))
			return jsonError(c, 503, "push_limit", "too many devices keep notification settings");
		const b = c.req.valid("json") as Static<typeof PushBodies.settings>;
		push.store.set(id, { ...push.store.get(id), settings: { finished: b.finished, waiting: b.waiting } });
		return c.json(viewOf(push, id));
	});

	app.post("/subscribe", jsonBody(PushBodies.subscribe), (c) => {
		const id = me(c);
		const b = c.req.valid("json") as Static<typeof PushBodies.subscribe>;
		const problem = endpointProblem(b.endpoint) ?? keysProblem(b.keys);
		if (problem) return jsonError(c, 400, "bad_request", problem);
		if (!push.store.hasRoomFor(id)) return jsonError(c, 503, "push_limit", "too many devices are subscribed");
		// One subscription per device, and one device per subscription: the endpoint moves to whoever sent it.
		push.store.dropEndpoint(b.endpoint);
		const subscription = { endpoint: b.endpoint, keys: b.keys, createdAt: new Date().toISOString() };
		push.store.set(id, { ...push.store.get(id), subscription });
		return c.json(viewOf(push, id), 201);
	});

	app.post("/unsubscribe", jsonBody(PushBodies.empty), (c) => {
		const id = me(c);
		const { subscription: _gone, ...rest } = push.store.get(id);
		push.store.set(id, rest);
		return c.json(viewOf(push, id));
	});

	return app;
}

type NodeBindings = { incoming: IncomingMessage; outgoing: ServerResponse };

/**
 * Mounts push on the chamber's app (server.ts): the routes under `/api/push`, behind the same auth and origin check
 * as `/api/pi`, and the page watch on `/api/pi/events`, which must come after that route's auth middleware and
 * before the route. Answers the service (closed with the daemon).
 */
export function mountPush(
	// biome-ignore lint/suspicious/noExplicitAny: the chamber's app, whatever its bindings
	app: HonoApp<any>,
	options: { stateDir: string; auth: AuthStore; chamber: Chamber },
): PushService {
	const push = new PushService(options);
	// A device whose page holds an event stream is told by that page, not by Web Push.
	app.use("/api/pi/events", async (c, next) => {
		const principal = (c as Context<AuthEnv>).get("principal");
		const res = (c.env as NodeBindings | undefined)?.outgoing;
		if (!principal || !res) return next();
		const closeIt = push.pageOpened(principal.id);
		res.on("close", closeIt);
		await next();
		if (c.res !== (RESPONSE_ALREADY_SENT as unknown)) closeIt();
	});
	app.use("/api/push/*", requireAuth(options.auth), checkOrigin());
	app.use(
		"/api/push/*",
		bodyLimit({ maxSize: 16 * 1024, onError: (c) => jsonError(c, 413, "bad_request", "body too large") }),
	);
	app.route("/api/push", pushRoutes(push));
	return push;
}
