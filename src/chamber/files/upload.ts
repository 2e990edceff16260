/**
 * A file uploaded into the project (from a phone, say): into a project directory (checked like any other
 * project path), under a size limit, and never over an existing file unless the client says `overwrite`.
 * The bytes go to a new temporary file beside the target first (created exclusively, never through a symlink,
 * and checked to be inside the project once open), then take the name in one step: `link`, which fails if the
 * name exists, or with `overwrite`, `rename`, which replaces a name and never writes through a symlink.
 */
import { randomBytes } from "node:crypto";
import { constants, lstatSync } from "node:fs";
import { type FileHandle, link, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { insideProject, openedPath } from "../attachments/attach.js";
import { SessionError } from "../session-error.js";
import { UPLOAD_MAX_BYTES, type UploadResult } from "./files-wire.js";
import type { UploadBody } from "./upload-body.js";
import { projectDir } from "./project-path.js";

/** The name exists and `overwrite` was not given: the route answers 409 `file_exists`. */
export class FileExistsError extends Error {
	constructor(readonly path: string) {
		super(`${path} already exists in the project; upload again with overwrite to replace it`);
	}
}

function checkName(name: string): void {
	if (name.includes("/") || name.includes("\\") || name.includes("\0") || name === "." || name === "..") {
		throw new SessionError("bad_request", `name: ${JSON.stringify(name)} is not a plain file name (no / or ..)`);
	}
}

function exists(path: string): "file" | "other" | undefined {
	try {
		const info = lstatSync(path);
		return info.isFile() ? "file" : "other";
	} catch {
		return undefined;
	}
}

export async function uploadProjectFile(root: string, body: UploadBody): Promise<UploadResult> {
	checkName(body.name);
	const { rel, real } = projectDir(root, "dir", body.dir);
	const bytes = Buffer.from(body.data, "base64");
	if (bytes.length > UPLOAD_MAX_BYTES) {
		throw new SessionError(
			"bad_file",
			`${body.name}: ${bytes.length} bytes, over the ${UPLOAD_MAX_BYTES} bytes an upload may have; copy it into the project another way`,
		);
	}
	const path = rel ? `${rel}/${body.name}` : body.name;
	const target = join(real, body.name);
	const before = exists(target);
	if (before === "other") {
		throw new SessionError("bad_file", `${path} is a directory, a symbolic link or a special file: not replaced`);
	}
	if (before === "file" && !body.overwrite) throw new FileExistsError(path);

	const temp = join(real, `.${body.name.slice(0, 200)}.pier-upload-${randomBytes(6).toString("hex")}`);
	let handle: FileHandle | undefined;
	try {
		handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
		// The directory was checked by name: what was created must be inside the project too (a swapped link).
		if (!insideProject(root, await openedPath(handle, temp))) {
			throw new SessionError("outside_project", `dir: ${rel || "."} leads outside the project`);
		}
		await handle.writeFile(bytes);
		await handle.close();
		handle = undefined;
		if (body.overwrite) await rename(temp, target);
		else {
			try {
				await link(temp, target);
			} catch (error) {
				if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new FileExistsError(path);
				throw error;
			}
		}
	} catch (error) {
		if (error instanceof SessionError || error instanceof FileExistsError) throw error;
		throw new SessionError("bad_file", `${path}: could not be written: ${(error as Error).message}`);
	} finally {
		await handle?.close().catch(() => {});
		await unlink(temp).catch(() => {});
	}
	return { path, size: bytes.length, replaced: before === "file" };
}
