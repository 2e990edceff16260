/** Protocol error codes (REFERENCES.md §3) and the error the host raises with one. */

export const ERROR_CODES = [
	"load_phase",
	"not_active",
	"invalidated",
	"permission_denied",
	"ui_unavailable",
	"ui_request_failed",
	"action_unavailable",
	"action_failed",
	"load_failed",
	"extension_error",
	"cancelled",
	"frame_too_large",
	"shutdown",
	"transport_closed",
	"unsupported_request",
	// Not on the wire: the code of the error the host raises itself when an extension does not answer in time.
	"timeout",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class ExtensionError extends Error {
	override name = "ExtensionError";
	constructor(
		readonly code: ErrorCode | string,
		message: string,
	) {
		super(message);
	}
}
