/**
 * `GET /api/openapi.json`: the document of the app that serves it, generated on the first request (every route
 * is registered by then) and kept. It needs no credential: it describes routes and shapes, the same text as the
 * docs/openapi.json the package ships, and never data, paths or secrets of this daemon.
 */
import type { Context } from "hono";
import { openApiDocument, type RouteRow } from "./document.js";

export function openApiRoute(routes: () => readonly RouteRow[]) {
	let text: string | undefined;
	return (c: Context) => {
		text ??= `${JSON.stringify(openApiDocument(routes()).document, null, "\t")}\n`;
		return c.body(text, 200, { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache" });
	};
}
