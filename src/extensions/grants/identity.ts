/**
 * What a grant is bound to: not a bare manifest id (any extension can claim one) but the extension's
 * canonical manifest directory and a digest of every file in it. Another directory claiming the same id, or
 * the same directory with changed code, holds nothing until the user grants again.
 */
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { basename, isAbsolute, join, resolve, sep } from "node:path";
import { loadManifest, MANIFEST_FILE, type RuntimeKind } from "../manifest.js";
import { DIGEST_SKIPS } from "./digest-scope.js";

export interface ExtensionIdentity {
	id: string;
	/** The canonical (symlink-free) manifest directory. */
	dir: string;
	digest: string;
	runtime: RuntimeKind;
}

export class GrantTargetError extends Error {
	override name = "GrantTargetError";
}

/** A QuickJS package is small: anything bigger is refused a digest rather than hashed for seconds. */
const MAX_FILES = 4_096;
const MAX_BYTES = 64 * 1024 * 1024;

/**
 * sha256 over every regular file and symlink under `root` (path, size and bytes; a link by its target text),
 * in a fixed order. The whole tree, not only manifest and entry: the entry's imports are code too.
 */
export function packageDigest(root: string): string {
	const hash = createHash("sha256");
	let files = 0;
	let bytes = 0;
	const walk = (rel: string) => {
		const names = readdirSync(rel ? join(root, rel) : root).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
		for (const name of names) {
			if (name === DIGEST_SKIPS) continue;
			const path = rel ? `${rel}/${name}` : name;
			const stat = lstatSync(join(root, path));
			if (stat.isDirectory()) walk(path);
			else if (stat.isSymbolicLink()) hash.update(`L\0${path}\0${readlinkSync(join(root, path))}\0`);
			else if (stat.isFile()) {
				files += 1;
				bytes += stat.size;
				if (files > MAX_FILES || bytes > MAX_BYTES)
					throw new GrantTargetError(
						`${root} is too large to bind a grant to (over ${MAX_FILES} files or ${MAX_BYTES / 1024 / 1024} MiB)`,
					);
				const content = readFileSync(join(root, path));
				hash.update(`F\0${path}\0${content.length}\0`);
				hash.update(content);
			}
		}
	};
	walk("");
	return `sha256:${hash.digest("hex")}`;
}

/** The identity of the extension whose manifest is at `path` (a directory or its pi-extension.json). */
export function identityOf(path: string): ExtensionIdentity {
	// Any other file is not read at all: a wrong path (a key file) must not end up quoted in an error.
	if (isFile(path) && basename(path) !== MANIFEST_FILE)
		throw new GrantTargetError(
			`${path} is not an extension manifest (${MANIFEST_FILE}); a grant binds to an extension's directory: pier grant <directory> <grant…>`,
		);
	let manifest: ReturnType<typeof loadManifest>;
	try {
		manifest = loadManifest(path, { origin: "cli" });
	} catch (error) {
		throw new GrantTargetError((error as Error).message);
	}
	return { id: manifest.id, dir: manifest.root, digest: packageDigest(manifest.root), runtime: manifest.runtime.kind };
}

function isFile(path: string): boolean {
	try {
		return statSync(path).isFile();
	} catch {
		return false;
	}
}

/** Whether a `pier grant` argument names a directory rather than an extension id. */
export const isPathArgument = (arg: string): boolean =>
	arg.includes("/") || arg.includes(sep) || arg === "." || arg === ".." || isAbsolute(arg);

/**
 * The extension a `pier grant` / chamber argument means: a path is that directory's manifest; an id must name
 * exactly one extension installed in `<agentDir>/extensions` (`installed` lists their ids and directories).
 */
export function resolveTarget(
	arg: string,
	cwd: string,
	installed: readonly { id: string; dir: string }[],
	extensionsDir: string,
): ExtensionIdentity {
	if (isPathArgument(arg)) return identityOf(resolve(cwd, arg));
	const matches = installed.filter((e) => e.id === arg);
	if (matches.length === 0)
		throw new GrantTargetError(
			`no extension "${arg}" is installed in ${extensionsDir}; a grant binds to an extension's directory, so for one loaded from elsewhere name it: pier grant <directory> <grant…>`,
		);
	if (matches.length > 1)
		throw new GrantTargetError(
			`extension id "${arg}" is ambiguous: ${matches.map((m) => m.dir).join(" and ")} both declare it; name the directory: pier grant <directory> <grant…>`,
		);
	return identityOf(matches[0]!.dir);
}

/** How `pier grant` names an extension in a hint: its id when that resolves to this directory, else the directory. */
export function grantTarget(id: string, dir: string, installed: readonly { id: string; dir: string }[]): string {
	const matches = installed.filter((e) => e.id === id);
	if (matches.length === 1 && matches[0]!.dir === dir) return id;
	return /^[A-Za-z0-9_./-]+$/.test(dir) ? dir : JSON.stringify(dir);
}
