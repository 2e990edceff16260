/**
 * `/api/pi/grants`: the user's grants (extensionHost.grants of the global settings.json), the same store
 * `pier grant` / `pier revoke` edit. GET shows them with the installed extensions and what each declares;
 * PUT sets one extension's grants to exactly the list given, bound (like `pier grant`) to the directory and
 * code of the installed extension with that id, or of `dir` when given (an extension loaded from elsewhere,
 * or an id two installed extensions share).
 */
import { isAbsolute, join } from "node:path";
import { Hono } from "hono";
import { Type } from "typebox";
import { agentDir } from "../agent/paths.js";
import { GrantTargetError, identityOf, resolveTarget } from "../extensions/grants/identity.js";
import { grantOverview, installedExtensions } from "../extensions/grants/overview.js";
import { changeGrants, GrantStoreError } from "../extensions/grants/store.js";
import { GRANTS, isGrant } from "../extensions/grants/vocabulary.js";
import { identifierProblem } from "../extensions/manifest.js";
import { jsonError } from "./http-errors.js";
import { jsonBody } from "./json-body.js";

const SHAPE = `want {"grants":[${GRANTS.map((g) => `"${g}"`).join("|")}, …], "dir"?: "<absolute extension directory>"}`;
/** The grants themselves are checked by name in the handler, so an unknown one is named with the known ones. */
const GrantBody = Type.Object(
	{ grants: Type.Array(Type.Unknown()), dir: Type.Optional(Type.String()) },
	{ additionalProperties: false },
);

/** `loaded`: the directories the daemon loads extensions from besides the agent directory (`pier serve -e`). */
export function grantRoutes(dir: () => string = agentDir, loaded: () => readonly string[] = () => []): Hono {
	const app = new Hono();

	app.get("/", (c) => c.json(grantOverview(dir(), loaded())));

	app.put("/:id", jsonBody(GrantBody, SHAPE), async (c) => {
		const id = c.req.param("id");
		const idProblem = identifierProblem(id);
		if (idProblem) return jsonError(c, 400, "bad_request", `extension id ${idProblem}`);
		const { grants, dir: where } = c.req.valid("json");
		if (where !== undefined && !isAbsolute(where))
			return jsonError(c, 400, "bad_request", `/dir: ${JSON.stringify(where)} is not an absolute directory (${SHAPE})`);
		const unknown = grants.find((g) => !isGrant(g));
		if (unknown !== undefined)
			return jsonError(
				c,
				400,
				"bad_request",
				`/grants: unknown grant ${JSON.stringify(unknown)} (known grants: ${GRANTS.join(", ")})`,
			);
		try {
			const agent = dir();
			// Taking every grant away needs no binding; giving one needs to know exactly which extension.
			const identity =
				grants.length === 0 && where === undefined
					? undefined
					: where !== undefined
						? identityOf(where)
						: resolveTarget(id, agent, installedExtensions(agent), join(agent, "extensions"));
			if (identity && identity.id !== id)
				return jsonError(c, 400, "bad_request", `${identity.dir} holds extension "${identity.id}", not "${id}"`);
			const now = await changeGrants(agent, id, () => grants.filter(isGrant), identity);
			return c.json({ id, ...(identity ? { dir: identity.dir } : {}), grants: now });
		} catch (error) {
			if (error instanceof GrantTargetError) return jsonError(c, 409, "extension_unresolved", error.message);
			if (error instanceof GrantStoreError) return jsonError(c, 409, "grants_unavailable", error.message);
			throw error;
		}
	});

	return app;
}
