/**
 * The one error shape of the chamber's HTTP API (docs/chamber-api.md, "Errors"). Every route answers errors
 * through `jsonError` so the web app can rely on `{"error":{"code","message"}}` without sniffing bodies.
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiErrorBody } from "./wire.js";

/** The documented codes; any other string is allowed so a new route need not wait for this list. */
export type ErrorCode =
	| "unauthorized"
	| "bad_origin"
	| "bad_request"
	| "not_found"
	| "busy"
	| "trust_required"
	| "invalid_answer"
	| "unknown_command"
	| "bad_command"
	| "rate_limited"
	| "internal"
	| "bad_password"
	| "no_password"
	| "bad_pairing_token"
	| (string & {});

export function errorBody(code: ErrorCode, message: string): ApiErrorBody {
	return { error: { code, message } };
}

export function jsonError(c: Context, status: ContentfulStatusCode, code: ErrorCode, message: string): Response {
	return c.json(errorBody(code, message), status);
}
