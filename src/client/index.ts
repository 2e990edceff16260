/**
 * `pier/client`: a typed client of the chamber's API (`pier serve`). Its routes, bodies and answers are the types
 * of the schemas the OpenAPI document is generated from (src/chamber/openapi/operations.ts, wire-views.ts,
 * wire-events.ts), so a route the server changes changes the client's types with it. It runs wherever `fetch`
 * does (Node 20+, browsers): the web app's api.ts is a layer over it.
 *
 *     const pier = createClient({ baseUrl: "http://127.0.0.1:4317", token: "pier_dt_…" });
 *     const { session } = await pier.request("POST /api/pi/sessions", { body: {} });
 *     await pier.request("POST /api/pi/sessions/:id/prompt", { params: { id: session.id }, body: { text: "hi" } });
 *     for await (const e of pier.events({ session: session.id })) if (e.event === "agent.end") break;
 */
import type { Static, TSchema } from "typebox";
import type { OPERATIONS } from "../chamber/openapi/operations.js";
import type { EventEnvelope, EventName } from "../chamber/wire.js";

export type {
	ApiErrorBody,
	CreateSessionBody,
	EventEnvelope,
	EventName,
	EventPayloads,
	ModelView,
	PromptBody,
	SessionSummary,
	SessionView,
	TranscriptRow,
} from "../chamber/wire.js";

type Operations = typeof OPERATIONS;
/** A route as `METHOD /path/:param`, e.g. `"GET /api/pi/sessions/:id"`. */
export type Route = keyof Operations;
export type Method = Route extends `${infer M} ${string}` ? M : never;

type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
	? Name | ParamNames<`/${Rest}`>
	: P extends `${string}:${infer Name}`
		? Name
		: never;
type PathOf<R extends Route> = R extends `${string} ${infer P}` ? P : never;

/** What a route answers on success: its schema's type; a `Response` for a stream or a page. */
export type ResponseOf<R extends Route> = Operations[R] extends { response: infer S extends TSchema }
	? Static<S>
	: Response;
/** A route's request body (routes whose schema the document takes from the route itself accept any JSON object). */
export type BodyOf<R extends Route> = Operations[R] extends { body: infer S extends TSchema }
	? Static<S>
	: Record<string, unknown>;
type QueryOf<R extends Route> = Operations[R] extends { query: infer Q } ? { [N in keyof Q]?: string | number } : never;

export type RequestOptions<R extends Route> = ([ParamNames<PathOf<R>>] extends [never]
	? { params?: undefined }
	: { params: Record<ParamNames<PathOf<R>>, string> }) &
	([QueryOf<R>] extends [never] ? { query?: undefined } : { query?: QueryOf<R> }) & {
		body?: BodyOf<R>;
		signal?: AbortSignal;
	};

/** Any event of a stream, as a union on `event`: `switch (e.event)` narrows `e.payload`. */
export type AnyEvent = { [E in EventName]: EventEnvelope<E> }[EventName];

/** Every failure: the server's `{error:{code,message}}`, or `network` when the daemon could not be reached. */
export class PierApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		/** Seconds, from `Retry-After` on a 429. */
		readonly retryAfter?: number,
	) {
		super(message);
		this.name = "ApiError";
	}
}

export const NETWORK_ERROR = "The chamber is not reachable: the pier daemon is down or this device cannot reach it.";

export interface ClientOptions {
	/** The daemon's address (`http://127.0.0.1:4317`); "" or absent: the page's own origin (the web app). */
	baseUrl?: string;
	/** A device token (`pier token`, `POST /api/auth/tokens`), sent as `Authorization: Bearer`. */
	token?: string;
	/** More headers for every request, read each time (the web app's browser key). */
	headers?: () => Record<string, string>;
	credentials?: "omit" | "same-origin" | "include";
	fetch?: typeof fetch;
}

export interface EventsOptions {
	/** A session's stream (from its snapshot); without: the session list's events. */
	session?: string;
	/** Only the latest N rows in the snapshot. */
	rows?: number;
	/** Resume after this event sequence (the view's `seq`, or the last event's). */
	since?: number;
	signal?: AbortSignal;
}

export interface PierClient {
	/** A typed call of any route in the document. */
	request<R extends Route>(route: R, options?: RequestOptions<R>): Promise<ResponseOf<R>>;
	/** An untyped JSON call of a path (query included): for routes newer than this client. */
	send<T = unknown>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T>;
	/** The raw answer of a GET (an export, a page); throws `PierApiError` when it is not 2xx. */
	fetchRaw(path: string, signal?: AbortSignal): Promise<Response>;
	/** The event stream, as envelopes, until the server ends it or `signal` aborts. */
	events(options?: EventsOptions): EventStream;
}

/** One connection, opened at once: `opened` settles when the daemon answered (or refused: a `PierApiError`). */
export interface EventStream extends AsyncIterable<AnyEvent> {
	opened: Promise<void>;
}

export function createClient(options: ClientOptions = {}): PierClient {
	const base = (options.baseUrl ?? "").replace(/\/+$/, "");
	const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
	const headers = (extra: Record<string, string>): Record<string, string> => ({
		...extra,
		...options.headers?.(),
		...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
	});
	const init = (method: string, extra: Record<string, string>, signal?: AbortSignal): RequestInit => ({
		method,
		headers: headers(extra),
		...(options.credentials ? { credentials: options.credentials } : {}),
		...(signal ? { signal } : {}),
	});

	async function call(path: string, request: RequestInit): Promise<Response> {
		try {
			return await doFetch(`${base}${path}`, request);
		} catch (err) {
			if ((err as { name?: string } | undefined)?.name === "AbortError") throw err;
			throw new PierApiError(0, "network", NETWORK_ERROR);
		}
	}

	async function send<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
		// Every state-changing request carries the JSON type, bodiless DELETE included: the daemon's CSRF check
		// looks at the header, not at whether there is a body.
		const request = init(
			method,
			method === "GET"
				? { Accept: "application/json" }
				: { Accept: "application/json", "Content-Type": "application/json" },
			signal,
		);
		if (body !== undefined) request.body = JSON.stringify(body);
		const res = await call(path, request);
		const text = await res.text();
		let data: unknown;
		try {
			data = text ? JSON.parse(text) : undefined;
		} catch {
			data = undefined;
		}
		if (!res.ok) throw errorOf(res, data);
		return data as T;
	}

	async function fetchRaw(path: string, signal?: AbortSignal): Promise<Response> {
		const res = await call(path, init("GET", {}, signal));
		if (!res.ok) {
			const text = await res.text().catch(() => "");
			let data: unknown;
			try {
				data = text ? JSON.parse(text) : undefined;
			} catch {
				data = undefined;
			}
			throw errorOf(res, data);
		}
		return res;
	}

	return {
		send,
		fetchRaw,
		request<R extends Route>(route: R, opts: RequestOptions<R> = {} as RequestOptions<R>) {
			const space = route.indexOf(" ");
			const method = route.slice(0, space);
			const path = fillPath(route.slice(space + 1), opts.params as Record<string, string> | undefined, opts.query);
			const bodyless = method === "GET" || method === "DELETE";
			if (bodyless && isStreamOrPage(route)) return fetchRaw(path, opts.signal) as Promise<ResponseOf<R>>;
			return send<ResponseOf<R>>(method, path, bodyless ? opts.body : (opts.body ?? {}), opts.signal);
		},
		events: (opts = {}) => {
			const response = openEvents(call, init, opts);
			// Surfaced by `opened` and by the first read; never an unhandled rejection.
			response.catch(() => {});
			return { opened: response.then(() => undefined), [Symbol.asyncIterator]: () => readEvents(response) };
		},
	};
}

/** Routes whose success is not JSON (the document's `content`): kept in step by test/client/client-types.test.ts. */
const NON_JSON = new Set<string>([
	"GET /api/pi/events",
	"GET /api/pi/sessions/:id/export",
	"GET /api/pi/tui-palette.css",
	"GET /api/pi/sessions/:id/terminals/stream",
	"GET /api/mcp-oauth/callback",
]);
const isStreamOrPage = (route: string) => NON_JSON.has(route);
export const NON_JSON_ROUTES: ReadonlySet<string> = NON_JSON;

function fillPath(path: string, params: Record<string, string> | undefined, query: object | undefined): string {
	const filled = path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => {
		const value = params?.[name];
		if (value === undefined) throw new TypeError(`pier/client: the path parameter ${name} is missing for ${path}`);
		return encodeURIComponent(value);
	});
	const search = new URLSearchParams();
	for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) search.set(k, String(v));
	const qs = search.toString();
	return qs ? `${filled}?${qs}` : filled;
}

function errorOf(res: Response, data: unknown): PierApiError {
	const err = (data as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
	const code = typeof err?.code === "string" ? err.code : `http_${res.status}`;
	const message = typeof err?.message === "string" && err.message ? err.message : `${res.status} ${res.statusText}`;
	const retry = Number(res.headers.get("Retry-After"));
	return new PierApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/** Server-sent events over fetch (an EventSource cannot send `Authorization`): `data:` lines are envelopes. */
async function openEvents(
	call: (path: string, request: RequestInit) => Promise<Response>,
	init: (method: string, extra: Record<string, string>, signal?: AbortSignal) => RequestInit,
	opts: EventsOptions,
): Promise<Response & { body: ReadableStream<Uint8Array> }> {
	const query = new URLSearchParams();
	if (opts.session) query.set("session", opts.session);
	if (opts.rows !== undefined) query.set("rows", String(opts.rows));
	if (opts.since !== undefined) query.set("since", String(opts.since));
	const qs = query.toString();
	const res = await call(
		`/api/pi/events${qs ? `?${qs}` : ""}`,
		init("GET", { Accept: "text/event-stream" }, opts.signal),
	);
	if (!res.ok || !res.body) {
		const text = await res.text().catch(() => "");
		let data: unknown;
		try {
			data = text ? JSON.parse(text) : undefined;
		} catch {
			data = undefined;
		}
		throw errorOf(res, data);
	}
	return res as Response & { body: ReadableStream<Uint8Array> };
}

async function* readEvents(
	response: Promise<Response & { body: ReadableStream<Uint8Array> }>,
): AsyncGenerator<AnyEvent> {
	const res = await response;
	const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
	let buffer = "";
	try {
		for (;;) {
			const { value, done } = await reader.read();
			if (done) return;
			buffer += value.replace(/\r\n?/g, "\n");
			for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
				const block = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				const data = block
					.split("\n")
					.filter((line) => line.startsWith("data:"))
					.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
					.join("\n");
				if (data) yield JSON.parse(data) as AnyEvent;
			}
		}
	} finally {
		await reader.cancel().catch(() => {});
	}
}
