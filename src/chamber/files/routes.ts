/**
 * `/api/pi/sessions/:id/files/…`: the file browser of a session's project (its directory). Listing and preview
 * read; upload writes one new file (or, with `overwrite`, replaces one). All three hold to the `outside_project`
 * rule of `@file` attachments. Like `@` completion they read a running session (a cold one answers `not_open`,
 * and the page opens it first).
 */
import { Hono } from "hono";
import type { Chamber } from "../chamber.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import { failure } from "../route-failure.js";
import { UploadBody } from "./upload-body.js";
import { listProjectDir } from "./list.js";
import { previewProjectFile } from "./preview.js";
import { projectRoot } from "./project-path.js";
import { FileExistsError, uploadProjectFile } from "./upload.js";

export function filesRoutes(chamber: Chamber): Hono {
	const app = new Hono();
	app.onError((error, c) =>
		error instanceof FileExistsError ? jsonError(c, 409, "file_exists", error.message) : failure(c, error),
	);
	const rootOf = async (id: string) => projectRoot((await chamber.running(id)).summary().cwd);

	app.get("/sessions/:id/files/list", async (c) => {
		const root = await rootOf(c.req.param("id"));
		return c.json(await listProjectDir(root, c.req.query("dir") ?? ""));
	});

	app.get("/sessions/:id/files/preview", async (c) => {
		const path = c.req.query("path");
		if (!path) return jsonError(c, 400, "bad_request", "path: required (a file of the project)");
		return c.json(await previewProjectFile(await rootOf(c.req.param("id")), path));
	});

	app.post("/sessions/:id/files/upload", jsonBody(UploadBody), async (c) => {
		const root = await rootOf(c.req.param("id"));
		return c.json(await uploadProjectFile(root, c.req.valid("json")), 201);
	});

	return app;
}
