/**
 * The page's side of an MCP App (SEP-1865): JSON-RPC 2.0 over postMessage with the app in pier's app frame
 * (app-frame.ts, web/public/app-frame.html). The app speaks from its frame's window with no token (it is the
 * document, and posts itself); the frame's shell, which the app cannot reach, reports each real click or key
 * press in the frame with the mount's token. A `tools/call` is proxied to the daemon only right after such a
 * gesture, while the browser still counts the page as activated by the user; the daemon then allows only a tool
 * of the app's own server. Everything else an app asks for is answered, or refused with a JSON-RPC error that
 * says why.
 */
import type { McpAppView } from "./types.js";

export const MCP_APPS_PROTOCOL = "2026-01-26";
/** A gesture counts this long, as a browser's transient user activation does. */
export const GESTURE_MS = 5000;
/** The frame's height follows `ui/notifications/size-changed` within these bounds (CSS pixels). */
export const MIN_HEIGHT = 48;
export const MAX_HEIGHT = 720;
/** pier's own JSON-RPC error code for a refusal (the spec leaves it to the host). */
export const REFUSED = -32000;

export type RpcId = string | number;
export type AppMessage =
	| { kind: "gesture" }
	| { kind: "request"; id: RpcId; method: string; params: Record<string, unknown> }
	| { kind: "notification"; method: string; params: Record<string, unknown> }
	| { kind: "response"; id: RpcId };

function isId(value: unknown): value is RpcId {
	return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** What came from this app's frame, or undefined for anything else (another frame, a stray message). */
export function readAppMessage(
	event: Pick<MessageEvent, "source" | "data">,
	frame: Window | null | undefined,
	token: string,
): AppMessage | undefined {
	if (!frame || event.source !== frame) return undefined;
	const data = event.data as Record<string, unknown> | null;
	if (!data || typeof data !== "object") return undefined;
	if (data.type === "pichamber.gesture") return data.token === token ? { kind: "gesture" } : undefined;
	if (data.jsonrpc !== "2.0") return undefined;
	const raw = data.params;
	const params = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
	if (typeof data.method === "string") {
		return isId(data.id)
			? { kind: "request", id: data.id, method: data.method, params }
			: { kind: "notification", method: data.method, params };
	}
	return isId(data.id) ? { kind: "response", id: data.id } : undefined;
}

export function theme(): "light" | "dark" {
	return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** `ui/initialize`'s result: who pier is, what it offers an app, and the context it is shown in. */
export function initializeResult(view: McpAppView): Record<string, unknown> {
	return {
		protocolVersion: MCP_APPS_PROTOCOL,
		hostInfo: { name: "pier", version: view.hostVersion },
		hostCapabilities: {
			serverTools: {},
			openLinks: {},
			logging: {},
			sandbox: { permissions: {}, csp: view.csp.granted },
		},
		hostContext: {
			theme: theme(),
			displayMode: "inline",
			availableDisplayModes: ["inline"],
			containerDimensions: { maxHeight: MAX_HEIGHT },
			platform: matchMedia("(pointer: coarse)").matches ? "mobile" : "web",
			locale: navigator.language,
			timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
			userAgent: "pier",
			toolInfo: { tool: { name: view.tool } },
		},
	};
}

/** The frame's height for a size the app reported, or undefined when the report is not a size. */
export function boundedHeight(params: Record<string, unknown>): number | undefined {
	const height = params.height;
	if (typeof height !== "number" || !Number.isFinite(height)) return undefined;
	return Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height)));
}

/** Why a `tools/call` is refused before it leaves the page, or undefined when the user just asked for it. */
export function gestureProblem(lastGesture: number | undefined, now: number, pageActive: boolean): string | undefined {
	if (lastGesture === undefined || now - lastGesture > GESTURE_MS || !pageActive) {
		return "pier refused tools/call: no click or key press in this app just before it (an MCP App may call a tool only when the user acts in it)";
	}
	return undefined;
}

/** An `http:` or `https:` URL to open for `ui/open-link`, or undefined. */
export function linkTarget(params: Record<string, unknown>): string | undefined {
	if (typeof params.url !== "string" || params.url.length > 2048) return undefined;
	try {
		const url = new URL(params.url);
		return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
	} catch {
		return undefined;
	}
}
