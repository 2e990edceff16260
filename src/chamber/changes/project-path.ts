/**
 * A path from a request or a tool call, held to the session's project with the attachments' `outside_project`
 * rule (attachments/attach.ts `inside`): by name, and again by its real path with symbolic links resolved (the
 * file's own, or its nearest existing parent's when it does not exist). Reads and writes of the Changes view go
 * through here, and a write never follows a symbolic link in its last component (O_NOFOLLOW), so a link swapped in
 * after the check cannot carry it out of the project either.
 */
import { constants, realpathSync } from "node:fs";
import { lstat, mkdir, open, rm } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { insideProject } from "../attachments/attach.js";
import { SessionError } from "../session-error.js";

/** The project's real root: what every real path is held to. */
export function projectRoot(cwd: string): string {
	return realpathSync(cwd);
}

function outside(path: string, root: string): SessionError {
	return new SessionError("outside_project", `${path}: outside the project (${root})`);
}

/** The real path of `name`, or of its nearest existing ancestor joined with the rest. */
export function realOf(name: string): string {
	let head = name;
	const rest: string[] = [];
	for (;;) {
		try {
			return resolve(realpathSync(head), ...rest);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "ENOTDIR")
				throw error;
			const parent = dirname(head);
			if (parent === head) return name;
			rest.unshift(head.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
			head = parent;
		}
	}
}

/**
 * The absolute path of `path` in the project, refused (`outside_project`) when it or its real path is outside.
 * The last component is not resolved when it is itself a symbolic link: what it points to is checked by
 * whoever reads or writes it (they never follow it).
 */
export function projectPath(root: string, path: string): string {
	if (path.includes("\0")) throw new SessionError("bad_request", "path: contains a NUL byte");
	if (isAbsolute(path)) throw outside(path, root);
	const name = resolve(root, path);
	if (!insideProject(root, name) || name === root) throw outside(path, root);
	const parentReal = realOf(dirname(name));
	if (!insideProject(root, parentReal)) throw outside(path, root);
	return name;
}

/** The project-relative, '/'-separated name of an absolute path inside it. */
export function relativeName(root: string, absolute: string): string {
	return relative(root, absolute).split(sep).join("/");
}

export type Current = { kind: "absent" } | { kind: "file"; bytes: Buffer } | { kind: "other"; what: string };

/** What is at `name` now, never following a symbolic link (a link is "other": the view neither reads nor writes it). */
export async function readCurrent(name: string, maxBytes: number): Promise<Current> {
	let info: Awaited<ReturnType<typeof lstat>>;
	try {
		info = await lstat(name);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
		throw error;
	}
	if (info.isSymbolicLink()) return { kind: "other", what: "a symbolic link" };
	if (info.isDirectory()) return { kind: "other", what: "a directory" };
	if (!info.isFile()) return { kind: "other", what: "not a regular file" };
	if (info.size > maxBytes) return { kind: "other", what: `larger than ${maxBytes} bytes` };
	const handle = await open(name, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
	try {
		return { kind: "file", bytes: await handle.readFile() };
	} finally {
		await handle.close();
	}
}

/**
 * Puts `bytes` at `name` (or removes the file for null), inside `root` only: missing parent directories are made
 * and checked again by real path, and the file is opened without following a link.
 */
export async function writeInProject(root: string, name: string, bytes: Buffer | null, mode?: number): Promise<void> {
	const parent = dirname(name);
	if (!insideProject(root, realOf(parent))) throw outside(relativeName(root, name), root);
	if (bytes === null) {
		const info = await lstat(name).catch(() => undefined);
		if (info && !info.isFile()) throw new SessionError("bad_file", `${relativeName(root, name)}: not a regular file`);
		await rm(name, { force: true });
		return;
	}
	await mkdir(parent, { recursive: true });
	// mkdir may have followed a parent replaced by a link since the check: look again before writing.
	if (!insideProject(root, realpathSync(parent))) throw outside(relativeName(root, name), root);
	const handle = await open(
		name,
		constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK,
		mode ?? 0o644,
	);
	try {
		await handle.writeFile(bytes);
	} finally {
		await handle.close();
	}
}
