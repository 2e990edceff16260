/** Why a session operation was refused, as a domain code; routes.ts maps each to its HTTP status. */
export type SessionErrorCode =
	| "not_found"
	| "unknown_command"
	| "busy"
	| "cancelled"
	| "not_open"
	| "trust_required"
	| "gone"
	| "bad_command"
	| "bad_file"
	| "outside_project"
	| "bad_request"
	| "page_command"
	| "app_command_refused"
	| "card_command_refused"
	| "mcp_unavailable"
	| "mcp_not_offered"
	| "mcp_save_failed"
	| "mcp_signin_failed"
	| "mcp_app_refused"
	| "mcp_app_invalid"
	| "internal";

/** A session operation refused for a reason the caller can act on; it knows nothing of HTTP. */
export class SessionError extends Error {
	constructor(
		readonly code: SessionErrorCode,
		message: string,
	) {
		super(message);
	}
}
