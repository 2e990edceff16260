/** Request bodies of the auth routes: small JSON objects with known fields. */
import type { Context } from "hono";
import { jsonError } from "../http-errors.js";

/** An empty body reads as `{}`; anything else must be a JSON object with only the `allowed` fields. */
export async function readBody(c: Context, allowed: readonly string[]): Promise<Record<string, unknown> | Response> {
	const text = await c.req.text();
	if (text.trim() === "") return {};
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return jsonError(c, 400, "bad_request", "body must be valid JSON");
	}
	if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
		return jsonError(c, 400, "bad_request", "body must be a JSON object");
	}
	const extra = Object.keys(parsed).find((k) => !allowed.includes(k));
	if (extra !== undefined) return jsonError(c, 400, "bad_request", `unexpected field ${JSON.stringify(extra)}`);
	return parsed as Record<string, unknown>;
}

/** The one rule for a JSON body's Content-Type (checkOrigin and json-body.ts both apply it). */
export function isJsonContentType(value: string | undefined): boolean {
	return value?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}
