/**
 * The chamber's OpenAPI 3.1 document, generated from the running app: the routes Hono registered
 * (`app.routes`), the request body schema each route's `jsonBody` checks, and operations.ts for the rest
 * (summaries, query parameters, answers). The event stream's envelope and every event payload (wire-events.ts)
 * are components. Nothing in it is written by hand; `npm run openapi` writes it to docs/openapi.json.
 */
import type { TSchema } from "typebox";
import { bodySchemaOf } from "../json-body.js";
import { EVENT_SCHEMAS } from "../wire-events.js";
import * as AuthViews from "../auth/auth-wire.js";
import * as Views from "../wire-views.js";
import { OPERATIONS, type Operation } from "./operations.js";
import { API_VERSION, API_VERSION_HEADER } from "./version.js";

/** A route as Hono lists it in `app.routes` (one row per handler, middleware included). */
export interface RouteRow {
	method: string;
	path: string;
	handler: unknown;
}

export interface ApiRoute {
	method: string;
	/** Hono's form: `/api/pi/sessions/:id`. */
	path: string;
	/** The schema a `jsonBody` on the route validates, if any. */
	body?: TSchema;
}

/** `METHOD /path` as operations.ts keys it. */
export const routeKey = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

/**
 * The API's routes: under /api, without wildcards (middleware and the 404 fallback), one per method and path.
 * An `ALL` row is middleware when the path has routes of a real method (Hono lists `app.use` as `ALL`).
 */
export function apiRoutes(rows: readonly RouteRow[]): ApiRoute[] {
	const byKey = new Map<string, ApiRoute>();
	const methodsAt = new Map<string, Set<string>>();
	for (const row of rows) {
		if (!row.path.startsWith("/api/") || row.path.includes("*")) continue;
		methodsAt.set(row.path, (methodsAt.get(row.path) ?? new Set()).add(row.method));
	}
	for (const row of rows) {
		if (!row.path.startsWith("/api/") || row.path.includes("*")) continue;
		if (row.method === "ALL" && (methodsAt.get(row.path)?.size ?? 0) > 1) continue;
		const key = routeKey(row);
		const route = byKey.get(key) ?? { method: row.method, path: row.path };
		const body = bodySchemaOf(row.handler);
		if (body) route.body = body;
		byKey.set(key, route);
	}
	return [...byKey.values()];
}

/** Hono's `:id` (and `:id{regex}`) as OpenAPI's `{id}`. */
export function openApiPath(path: string): string {
	return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, "{$1}");
}

const ERROR_REF = { $ref: "#/components/schemas/ApiError" };
const SECURITY = [{ bearer: [] }, { browser: [], browserKey: [] }];

function operationId(method: string, path: string): string {
	const words = path
		.replace(/^\/api\//, "")
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean);
	return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join("");
}

/** The views of wire-views.ts and auth/auth-wire.ts, published once each under components.schemas and referred to by name. */
const NAMED = new Map<object, string>(
	(Object.entries({ ...Views, ...AuthViews }) as [string, unknown][])
		.filter(
			(entry): entry is [string, TSchema] =>
				typeof entry[1] === "object" && entry[1] !== null && !Array.isArray(entry[1]),
		)
		.map(([name, schema]) => [schema, name === "ApiErrorBody" ? "ApiError" : name]),
);

/** Plain JSON (without TypeBox's own keys), a named view as a `$ref` except at the top of its own definition. */
function plain(schema: unknown, top = false): unknown {
	if (Array.isArray(schema)) return schema.map((s) => plain(s));
	if (typeof schema !== "object" || schema === null) return schema;
	const name = top ? undefined : NAMED.get(schema);
	if (name) return { $ref: `#/components/schemas/${name}` };
	const out: Record<string, unknown> = {};
	for (const [key, value] of Object.entries(schema)) if (value !== undefined) out[key] = plain(value);
	return out;
}

function namedComponents(): Record<string, unknown> {
	return Object.fromEntries([...NAMED].map(([schema, name]) => [name, plain(schema, true)]));
}

function operationOf(route: ApiRoute, op: Operation | undefined) {
	const params = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
		name: m[1],
		in: "path",
		required: true,
		schema: { type: "string" },
	}));
	const query = Object.entries(op?.query ?? {}).map(([name, schema]) => ({
		name,
		in: "query",
		required: op?.requiredQuery?.includes(name) ?? false,
		schema: plain(schema),
	}));
	const body = route.body ?? op?.body;
	const status = String(op?.status ?? 200);
	const success = op?.content
		? {
				description: op.content === "text/event-stream" ? "A stream of server-sent events." : "The document.",
				content: {
					[op.content]: {
						schema:
							op.content === "text/event-stream" ? { $ref: "#/components/schemas/EventEnvelope" } : { type: "string" },
					},
				},
			}
		: { description: "Success.", content: { "application/json": { schema: op?.response ? plain(op.response) : {} } } };
	return {
		operationId: operationId(route.method, route.path),
		summary: op?.summary ?? "Undocumented: add this route to src/chamber/openapi/operations.ts.",
		...(op?.deprecated ? { deprecated: true } : {}),
		...(op?.public ? { security: [] } : {}),
		...(params.length + query.length > 0 ? { parameters: [...params, ...query] } : {}),
		...(body ? { requestBody: { required: true, content: { "application/json": { schema: plain(body) } } } } : {}),
		responses: {
			[status]: { ...success, headers: { [API_VERSION_HEADER]: { $ref: "#/components/headers/ApiVersion" } } },
			default: {
				description: "An error: `{error:{code,message}}` (docs/chamber-api.md, Errors).",
				content: { "application/json": { schema: ERROR_REF } },
			},
		},
	};
}

function eventComponents(): Record<string, unknown> {
	const schemas: Record<string, unknown> = {};
	const envelopes: unknown[] = [];
	for (const [name, schema] of Object.entries(EVENT_SCHEMAS)) {
		const id = `Event_${name.replace(/[^A-Za-z0-9]/g, "_")}`;
		schemas[id] = plain(schema);
		envelopes.push({
			type: "object",
			required: ["version", "event", "seq", "sessionId", "payload"],
			properties: {
				version: { const: 1 },
				event: { const: name },
				seq: { type: "number", description: "The event's sequence (also its SSE id); 0: not numbered." },
				sessionId: { type: "string" },
				payload: { $ref: `#/components/schemas/${id}` },
			},
		});
	}
	schemas.EventEnvelope = { description: "The `data` of every event on a stream.", oneOf: envelopes };
	return schemas;
}

export interface GeneratedDocument {
	document: Record<string, unknown>;
	/** Routes the server registers without an entry in operations.ts. */
	undocumented: string[];
	/** Entries of operations.ts without a route. */
	unrouted: string[];
}

export function openApiDocument(rows: readonly RouteRow[]): GeneratedDocument {
	const routes = apiRoutes(rows).sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
	const table = OPERATIONS as Record<string, Operation>;
	const paths: Record<string, Record<string, unknown>> = {};
	for (const route of routes) {
		const path = openApiPath(route.path);
		const item = paths[path] ?? {};
		item[route.method.toLowerCase()] = operationOf(route, table[routeKey(route)]);
		paths[path] = item;
	}
	const registered = new Set(routes.map(routeKey));
	return {
		document: {
			openapi: "3.1.0",
			info: {
				title: "pier chamber API",
				version: API_VERSION,
				description:
					"The HTTP API and event stream of `pier serve`. Generated from the schemas that validate the routes; " +
					"see docs/chamber-api.md for the prose, the version header and the deprecation rule.",
			},
			paths,
			components: {
				schemas: { ...namedComponents(), ...eventComponents() },
				headers: {
					ApiVersion: {
						description: "The API version this answer follows (info.version).",
						schema: { type: "string" },
					},
				},
				securitySchemes: {
					bearer: { type: "http", scheme: "bearer", description: "A device token (`pier_dt_…`)." },
					browser: { type: "apiKey", in: "cookie", name: "pier_session" },
					browserKey: { type: "apiKey", in: "header", name: "X-Pier-Key" },
				},
			},
			security: SECURITY,
		},
		undocumented: routes.map(routeKey).filter((k) => !(k in table)),
		unrouted: Object.keys(table).filter((k) => !registered.has(k)),
	};
}
