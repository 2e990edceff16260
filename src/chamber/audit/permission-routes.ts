/**
 * `/api/pi/permissions`: the permission rules by source, for the chamber's Permissions view. GET shows the
 * global file's rules and, for a trusted project (`?cwd=`), the project file's; POST adds one rule and DELETE
 * removes one (body: scope, list, rule, cwd). A project is edited only once trusted, and never gains an allow
 * rule: a project's settings may only make the agent ask more or do less.
 */
import { resolve } from "node:path";
import { Hono } from "hono";
import { agentDir } from "../../agent/paths.js";
import { canonicalDir, TrustStore } from "../../extensions/trust-store.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import {
	changeRule,
	globalSettingsFile,
	PermissionSettingsError,
	projectSettingsFile,
	readRules,
} from "./permission-settings.js";
import { PERMISSION_CHANGE_SHAPE, PermissionChange, type PermissionsView } from "./wire.js";

const STATUS = { bad_rule: 400, project_allow: 400, not_found: 404, settings_unavailable: 409 } as const;

/** `defaultCwd`: what a relative or missing `cwd` is resolved against (the daemon's directory). */
export function permissionRoutes(defaultCwd: string, dir: () => string = agentDir): Hono {
	const app = new Hono();
	const projectOf = (cwd: string | undefined) => {
		const path = canonicalDir(resolve(defaultCwd, cwd ?? "."));
		// A stored decision, not "nothing to trust": rules written into an undecided project would not apply.
		return { cwd: path, trusted: new TrustStore(dir()).get(path) === true };
	};
	const view = (cwd: string | undefined): PermissionsView => {
		const project = projectOf(cwd);
		return {
			global: readRules("global", globalSettingsFile(dir())),
			project: {
				...project,
				...(project.trusted ? { source: readRules("project", projectSettingsFile(project.cwd)) } : {}),
			},
		};
	};

	app.get("/", (c) => c.json(view(c.req.query("cwd"))));

	for (const [method, action] of [
		["post", "add"],
		["delete", "remove"],
	] as const) {
		app[method]("/", jsonBody(PermissionChange, PERMISSION_CHANGE_SHAPE), async (c) => {
			const body = c.req.valid("json");
			let file = globalSettingsFile(dir());
			if (body.scope === "project") {
				const project = projectOf(body.cwd);
				if (!project.trusted)
					return jsonError(
						c,
						403,
						"trust_required",
						`project ${project.cwd} is not trusted: its rules are not read, so none are added or removed; trust it first (pier trust ${project.cwd})`,
					);
				file = projectSettingsFile(project.cwd);
			} else if (body.cwd !== undefined)
				return jsonError(c, 400, "bad_request", `/cwd: only for scope "project" (${PERMISSION_CHANGE_SHAPE})`);
			try {
				await changeRule(body.scope, file, body.list, body.rule, action);
			} catch (error) {
				if (error instanceof PermissionSettingsError)
					return jsonError(c, STATUS[error.code], error.code, error.message);
				throw error;
			}
			return c.json(view(body.cwd));
		});
	}
	return app;
}
