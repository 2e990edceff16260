/**
 * `/api/pi/grants`: the user's grants (extensionHost.grants of the global settings.json), the same store
 * `pier grant` / `pier revoke` edit. GET shows them with the installed extensions and what each declares;
 * PUT sets one extension's grants to exactly the list given.
 */
import { Hono } from "hono";
import { agentDir } from "../agent/paths.js";
import { grantOverview } from "../extensions/grants/overview.js";
import { changeGrants, GrantStoreError } from "../extensions/grants/store.js";
import { GRANTS, isGrant } from "../extensions/grants/vocabulary.js";
import { identifierProblem } from "../extensions/manifest.js";
import { jsonError } from "./http-errors.js";

export function grantRoutes(dir: () => string = agentDir): Hono {
	const app = new Hono();

	app.get("/", (c) => c.json(grantOverview(dir())));

	app.put("/:id", async (c) => {
		const id = c.req.param("id");
		const idProblem = identifierProblem(id);
		if (idProblem) return jsonError(c, 400, "bad_request", `extension id ${idProblem}`);
		let body: unknown;
		try {
			body = await c.req.json();
		} catch {
			return jsonError(c, 400, "bad_request", "the body must be JSON");
		}
		const grants = (body as { grants?: unknown } | null)?.grants;
		const keys = body && typeof body === "object" && !Array.isArray(body) ? Object.keys(body) : [];
		if (!Array.isArray(grants) || keys.some((k) => k !== "grants"))
			return jsonError(c, 400, "bad_request", 'the body must be {"grants":["run"|"write"|"read", …]}');
		const unknown = grants.find((g) => !isGrant(g));
		if (unknown !== undefined)
			return jsonError(
				c,
				400,
				"bad_request",
				`/grants: unknown grant ${JSON.stringify(unknown)} (known grants: ${GRANTS.join(", ")})`,
			);
		try {
			const now = await changeGrants(dir(), id, () => grants.filter(isGrant));
			return c.json({ id, grants: now });
		} catch (error) {
			if (error instanceof GrantStoreError) return jsonError(c, 409, "grants_unavailable", error.message);
			throw error;
		}
	});

	return app;
}
