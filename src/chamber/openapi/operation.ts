/**
 * One entry of the route table (operations.ts) and the schemas several entries share.
 */
import { Type } from "typebox";
import type { TSchema } from "typebox";
import type { McpServerView } from "../wire.js";
import type { PushDeviceView } from "../push/notice.js";
import type { TerminalView } from "../terminal/terminal-wire.js";
import { described, SessionSummary } from "../wire-views.js";

export interface Operation {
	summary: string;
	/** Query parameters by name (all strings on the wire); optional unless listed in `required`. */
	query?: Record<string, TSchema>;
	requiredQuery?: readonly string[];
	/** The request body, for the client's types; a route with `jsonBody` must name its schema here or nothing. */
	body?: TSchema;
	/** The success answer's JSON; absent for a non-JSON answer (`content`). */
	response?: TSchema;
	/** The success status (200 unless said). */
	status?: 200 | 201 | 202;
	/** A non-JSON success answer: its media type. */
	content?: "text/event-stream" | "text/html" | "text/css";
	/** Answered without a credential. */
	public?: true;
	/** To be removed in the next API version (docs/chamber-api.md, "Versions and deprecation"). */
	deprecated?: true;
}

export const Ok = Type.Object({ ok: Type.Literal(true) });
export const OneSession = Type.Object({ session: SessionSummary });
export const Sessions = Type.Object({ sessions: Type.Array(SessionSummary) });
export const SessionQuery = { session: Type.String({ description: "A session id." }) };
export const Rows = Type.String({ pattern: "^[0-9]+$", description: "A whole number from 1 to 100000." });
export const ProviderKey = Type.Object({ provider: Type.String(), credentials: Type.String() });
export const McpServer = Type.Object({ server: described<McpServerView>("An MCP server as pi's /mcp shows it.") });
export const PushDevice = described<PushDeviceView>(
	"This device's notification settings (src/chamber/push/notice.ts).",
);
export const Terminal = described<TerminalView>("A terminal of the session (src/chamber/terminal/terminal-wire.ts).");
