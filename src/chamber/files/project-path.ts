/**
 * A path a client names inside the session's project, checked before anything is opened: relative, no `..`
 * segment, no NUL. Where it really leads (symlinks resolved) is checked by `insideProject`, the same rule as
 * `@file` attachments (attachments/attach.ts), on the resolved name and again on what was opened.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { insideProject } from "../attachments/attach.js";
import { SessionError } from "../session-error.js";

/** The path's segments, or a refusal naming `field` and what to do. "" (and ".") is the project's root. */
export function projectSegments(field: string, path: string): string[] {
	if (path.includes("\0")) throw new SessionError("bad_request", `${field}: contains a NUL character`);
	if (isAbsolute(path) || path.startsWith("\\"))
		throw new SessionError("outside_project", `${field}: ${path} is absolute; give a path relative to the project`);
	const segments = path.split("/").filter((s) => s !== "" && s !== ".");
	if (segments.includes(".."))
		throw new SessionError("outside_project", `${field}: ${path} steps out with "..": give a path inside the project`);
	return segments;
}

/** The project's real root (the session's directory with symlinks resolved). */
export function projectRoot(cwd: string): string {
	try {
		return realpathSync(cwd);
	} catch (error) {
		throw new SessionError("not_found", `the session's directory ${cwd} cannot be read: ${(error as Error).message}`);
	}
}

/** A project directory by its relative path: its real path, inside the project, or a refusal. */
export function projectDir(root: string, field: string, dir: string): { rel: string; real: string } {
	const rel = projectSegments(field, dir).join("/");
	let real: string;
	try {
		real = realpathSync(resolve(root, rel));
	} catch {
		throw new SessionError("not_found", `${field}: no directory ${rel || "."} in the project`);
	}
	if (!insideProject(root, real))
		throw new SessionError("outside_project", `${field}: ${rel} leads outside the project`);
	if (!statSync(real).isDirectory()) throw new SessionError("bad_request", `${field}: ${rel} is not a directory`);
	return { rel, real };
}
