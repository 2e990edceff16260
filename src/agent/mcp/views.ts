/**
 * What pier shows of a session's MCP servers: pi's own state and words, read from pi's `/mcp` manager
 * (pi-seams/mcp-manager.ts) and the session's tools. The chamber's wire re-exports these shapes.
 */
import type { McpMenu } from "../../pi-seams/mcp-manager.js";
import { parseServerDetails } from "../../pi-seams/mcp-manager.js";
import {
	MCP_EXPOSURES,
	type McpExposure,
	type McpServerState,
	type McpServerView,
	type McpToolView,
} from "./shapes.js";

/** pi's state words (index.js `describeState`) as one word a client can switch on. */
export function stateOf(text: string): McpServerState {
	if (text.startsWith("connected")) return "connected";
	if (text.startsWith("connecting")) return "connecting";
	if (text.startsWith("failed")) return "failed";
	if (text === "needs sign-in") return "needs-sign-in";
	if (text === "starting" || text === "disabled" || text === "disconnected") return text;
	return "unknown";
}

/**
 * An HTTP server's URL as its origin only: hosted MCP services put the account's secret in the path
 * (`…/api/mcp/s/<secret>/mcp`), and the view reaches every paired device. A command line is shown as pi shows it.
 */
export function shownTransport(transport: string): string {
	if (!/^https?:\/\//i.test(transport)) return transport;
	try {
		const url = new URL(transport);
		return url.pathname === "/" && !url.search ? url.origin : `${url.origin}/…`;
	} catch {
		return "(an invalid URL)";
	}
}

/** At most this much of an error: pi already keeps only 2,000 characters of stderr. */
export const MAX_ERROR_CHARS = 4_000;

function exposureIn(text: string | undefined): McpExposure {
	return MCP_EXPOSURES.find((e) => e === text) ?? "codemode";
}

/**
 * A server from its line in pi's servers menu (`<state> · <exposure> · <where>`) and its own screen, with the
 * session's tools of it.
 */
export function serverView(
	name: string,
	listing: string | undefined,
	screen: McpMenu,
	tools: McpToolView[],
): McpServerView {
	const details = parseServerDetails(screen.details);
	const parts = (listing ?? "").split(" · ");
	const actions = screen.items.map((item) => item.value);
	const stateText = details?.state ?? parts.slice(0, -2).join(" · ");
	const error = screen.error?.trim();
	return {
		name,
		state: stateOf(stateText),
		stateText,
		enabled: !actions.includes("enable"),
		// The server's own screen has it as it is now (the list line may be from before an exposure change).
		exposure: exposureIn(screen.items.find((item) => item.value === "exposure")?.description ?? parts.at(-2)),
		transport: shownTransport(details?.transport ?? ""),
		scope: details?.scope ?? "config",
		source: details?.source ?? "",
		...(details?.override ? { override: details.override } : {}),
		...(error ? { error: error.length > MAX_ERROR_CHARS ? `…${error.slice(-MAX_ERROR_CHARS)}` : error } : {}),
		tools,
		actions,
	};
}
