/**
 * Request bodies validated once, at the boundary: `jsonBody(schema)` is Hono middleware that parses the body as
 * JSON, checks it against a wire schema (wire.ts) and hands the handler the typed value (`c.req.valid("json")`).
 * A body that is not JSON, or not the schema's shape, is answered with a 400 naming the first thing wrong with
 * it, before the handler runs. A body without a JSON content type never gets here (auth/http.ts answers 415:
 * a page's plain form cannot post one), and is refused here too rather than read as an empty object.
 */
import type { Context } from "hono";
import { validator } from "hono/validator";
import type { Static, TSchema } from "typebox";
import { lazyValidator } from "../extensions/protocol/lazy-validator.js";
import { isJsonContentType } from "./auth/request-body.js";
import { jsonError } from "./http-errors.js";

export const NOT_JSON = "the body must be JSON";

/** Hono's key for the handler a mounted sub-app wrapped (hono/utils/constants COMPOSED_HANDLER). */
const COMPOSED = "__COMPOSED_HANDLER";

/** Which schema each `jsonBody` middleware checks: the OpenAPI document (openapi/document.ts) reads it back. */
const bodySchemas = new WeakMap<object, TSchema>();

/** The request body schema a route handler (as listed in Hono's `app.routes`) validates, if it is a `jsonBody`. */
export function bodySchemaOf(handler: unknown): TSchema | undefined {
	// A sub-app with its own onError is mounted with each handler wrapped; Hono keeps the original under this key.
	let h = handler;
	while (typeof h === "function" && !bodySchemas.has(h) && COMPOSED in h) h = (h as { [COMPOSED]?: unknown })[COMPOSED];
	return typeof h === "function" ? bodySchemas.get(h) : undefined;
}

/** `hint` follows the first error, for bodies whose shape is easier said than derived from the schema. */
export function jsonBody<S extends TSchema>(schema: S, hint?: string) {
	// Compiled on the first request that uses it: the daemon's start-up compiles nothing it may not need.
	const check = lazyValidator(schema);
	const middleware = validator("json", async (parsed, c: Context): Promise<Static<S> | Response> => {
		// Hono reads only JSON content types (a malformed body throws its HTTPException, which `failure` maps).
		if (!isJsonContentType(c.req.header("content-type")))
			return jsonError(c, 415, "bad_request", "Content-Type must be application/json");
		const value: unknown = parsed;
		if (check.Check(value)) return value as Static<S>;
		const first = [...check.Errors(value)][0];
		const where = first?.instancePath || "body";
		return jsonError(c, 400, "bad_request", `${where}: ${first?.message ?? "invalid"}${hint ? ` (${hint})` : ""}`);
	});
	bodySchemas.set(middleware, schema);
	return middleware;
}
