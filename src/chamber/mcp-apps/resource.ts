/**
 * An MCP App's `ui://` resource as a server's `resources/read` returned it, checked before anything of it reaches
 * the page: the content for the URI asked, the MCP Apps type (`text/html;profile=mcp-app`), text or base64 HTML
 * under the size cap, and its `_meta.ui` (csp, prefersBorder) read strictly.
 */
import { type AppPolicy, appPolicy, declaredCsp } from "./csp.js";

export const MCP_APP_MIME = "text/html;profile=mcp-app";
/** The most HTML an app may have (UTF-8 bytes), the same order as an app surface's. */
export const MAX_APP_HTML_BYTES = 512 * 1024;

export interface McpAppResource {
	html: string;
	policy: AppPolicy;
	/** `_meta.ui.prefersBorder`, when the server said. */
	prefersBorder?: boolean;
}

/** `text/html ; profile = mcp-app` in any case counts; any other type (plain `text/html` too) does not. */
export function isAppMime(mime: unknown): boolean {
	if (typeof mime !== "string") return false;
	const [type, ...params] = mime.split(";").map((part) => part.trim().toLowerCase());
	if (type !== "text/html" || params.length !== 1) return false;
	const [key, value] = params[0]!.split("=").map((part) => part.trim());
	return key === "profile" && value?.replace(/^"|"$/g, "") === "mcp-app";
}

function record(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/** The app in a `resources/read` result for `uri`, or why it cannot be shown. */
export function appResource(uri: string, result: unknown): McpAppResource | { error: string } {
	const contents = record(result)?.contents;
	if (!Array.isArray(contents)) return { error: `resources/read of ${uri} returned no contents` };
	const content = contents.map(record).find((c) => c?.uri === uri);
	if (!content) return { error: `resources/read of ${uri} returned no content for that URI` };
	if (!isAppMime(content.mimeType)) {
		return {
			error: `${uri} has type ${JSON.stringify(content.mimeType ?? null)}; an MCP App must be ${MCP_APP_MIME}`,
		};
	}
	let html: string;
	if (typeof content.text === "string") {
		if (Buffer.byteLength(content.text, "utf8") > MAX_APP_HTML_BYTES) return tooBig(uri);
		html = content.text;
	} else if (typeof content.blob === "string") {
		if (content.blob.length > Math.ceil(MAX_APP_HTML_BYTES / 3) * 4) return tooBig(uri);
		html = Buffer.from(content.blob, "base64").toString("utf8");
	} else {
		return { error: `${uri} has neither text nor blob` };
	}
	const ui = record(record(content._meta)?.ui);
	const declared = declaredCsp(ui?.csp);
	if ("error" in declared) return { error: `${uri}: ${declared.error}` };
	const app: McpAppResource = { html, policy: appPolicy(declared) };
	if (typeof ui?.prefersBorder === "boolean") app.prefersBorder = ui.prefersBorder;
	return app;
}

function tooBig(uri: string): { error: string } {
	return { error: `${uri} is over ${MAX_APP_HTML_BYTES} bytes, the most an MCP App may have` };
}
