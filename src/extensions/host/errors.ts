/** Protocol error codes (REFERENCES.md §3) and the error the host raises with one. */

export type ErrorCode =
	| "load_phase"
	| "not_active"
	| "invalidated"
	| "permission_denied"
	| "ui_unavailable"
	| "ui_request_failed"
	| "action_unavailable"
	| "action_failed"
	| "load_failed"
	| "extension_error"
	| "cancelled"
	| "frame_too_large"
	| "shutdown"
	| "transport_closed"
	| "unsupported_request"
	| "timeout";

export class ExtensionError extends Error {
	override name = "ExtensionError";
	constructor(
		readonly code: ErrorCode | string,
		message: string,
	) {
		super(message);
	}
}
