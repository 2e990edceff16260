/**
 * A thrown error as the chamber's HTTP answer: domain refusals (`SessionError`, a held session, a usage or trust
 * store problem) keep their meaning, anything else is `internal`. Every route module's `onError` uses it, so the
 * mapping lives apart from the routes that mount them.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { SessionInUseError } from "../agent/session-lease.js";
import { jsonError } from "./http-errors.js";
import { NOT_JSON } from "./json-body.js";
import { SessionError, type SessionErrorCode } from "./session-error.js";

/** The HTTP status of each domain error: the one place the session layer's refusals meet HTTP. */
const SESSION_ERROR_STATUS: Record<SessionErrorCode, ContentfulStatusCode> = {
	not_found: 404,
	unknown_command: 404,
	busy: 409,
	cancelled: 409,
	not_open: 409,
	trust_required: 409,
	gone: 410,
	bad_command: 422,
	bad_file: 422,
	outside_project: 403,
	bad_request: 422,
	page_command: 422,
	app_command_refused: 403,
	card_command_refused: 403,
	mcp_unavailable: 409,
	mcp_not_offered: 409,
	mcp_save_failed: 500,
	mcp_signin_failed: 502,
	mcp_app_refused: 403,
	mcp_app_invalid: 502,
	internal: 500,
};

export function failure(c: Context, error: unknown): Response {
	// Hono's own refusals (a malformed JSON body under a JSON content type) keep their status, in our shape.
	if (error instanceof HTTPException)
		return error.status === 400
			? jsonError(c, 400, "bad_request", NOT_JSON)
			: jsonError(c, error.status as ContentfulStatusCode, "http", error.message);
	if (error instanceof SessionError) return jsonError(c, SESSION_ERROR_STATUS[error.code], error.code, error.message);
	const message = (error as Error)?.message ?? String(error);
	// Another pier process writes that session file (session-lease.ts): say who, change nothing.
	const cause = (error as Error)?.cause;
	if (cause instanceof SessionInUseError) {
		const { holder, pid, host, since } = cause.by;
		const text = `This session is open in ${holder} (pid ${pid} on ${host}, since ${since}). Close it there, fork a copy, or follow it read-only.`;
		return jsonError(c, 409, "in_use", text);
	}
	// A usage problem from pier's factory (an unknown model) is the client's, not the daemon's.
	if ((error as Error)?.name === "PierUsageError") return jsonError(c, 400, "bad_request", message);
	// The user's trust.json is broken: nothing is decided until they fix it (the message says how).
	if ((error as Error)?.name === "TrustStoreError") return jsonError(c, 500, "trust_store_invalid", message);
	return jsonError(c, 500, "internal", message);
}
