/**
 * Where a QuickJS guest's imports may lead: relative `.js`/`.mjs` paths that, after every symlink, are
 * regular files inside the package, and inside what its grant digest covers (not under `.git`). Reading happens on the worker's only thread, so nothing here may block:
 * a FIFO would wait for a writer forever, a device could stream without end, and the interrupt deadline
 * cannot reach a blocked read.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { DIGEST_SKIPS, outsideDigest } from "../../grants/digest-scope.js";

/** The largest module source read into the sandbox (its whole heap is 64 MiB). */
export const MAX_MODULE_BYTES = 16 * 1024 * 1024;

function inside(root: string, path: string): boolean {
	return path === root || path.startsWith(root + sep);
}

/** The canonical path `requested` (relative to `base`) names, or why it may not be imported. */
export function resolveImport(root: string, base: string, requested: string): { path: string } | { refused: string } {
	if (!requested.startsWith("./") && !requested.startsWith("../")) {
		return {
			refused: `import "${requested}" refused: only relative .js/.mjs files inside the package can be imported`,
		};
	}
	const checked = moduleFile(root, resolve(dirname(base), requested));
	return "refused" in checked ? { refused: `import "${requested}" refused: ${checked.refused}` } : checked;
}

/** `target` after every symlink, if it is a `.js`/`.mjs` regular file inside `root`; else why not. */
export function moduleFile(root: string, target: string): { path: string } | { refused: string } {
	let real: string;
	try {
		real = realpathSync(target);
	} catch {
		return { refused: `${target} does not exist` };
	}
	if (!inside(root, real)) return { refused: "it is outside the package directory" };
	// The grant digest does not cover these files: code there could change and keep the package's grants.
	if (outsideDigest(relative(root, real)))
		return {
			refused: `${real} is inside a ${DIGEST_SKIPS} directory, which a grant does not cover; move it out of ${DIGEST_SKIPS}`,
		};
	if (!/\.m?js$/.test(real)) return { refused: "only .js and .mjs files can be imported" };
	let regular: boolean;
	try {
		regular = statSync(real).isFile();
	} catch (error) {
		return { refused: `${real} cannot be read (${(error as NodeJS.ErrnoException).code})` };
	}
	// A FIFO, device or directory named *.js would block or stream the worker's read: only regular files load.
	if (!regular) return { refused: `${real} is not a regular file` };
	return { path: real };
}

/**
 * A module's source, read without ever blocking: opened non-blocking and without following a final symlink
 * (the path may have changed since it was resolved), and read only when the open file is a regular one of
 * reasonable size.
 */
export function readModule(path: string): { source: string } | { refused: string } {
	let fd: number;
	try {
		fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
	} catch (error) {
		return { refused: `cannot read module ${path}: ${(error as NodeJS.ErrnoException).code}` };
	}
	try {
		const stat = fstatSync(fd);
		if (!stat.isFile()) return { refused: `module ${path} is not a regular file` };
		if (stat.size > MAX_MODULE_BYTES) {
			return { refused: `module ${path} is ${stat.size} bytes, more than the ${MAX_MODULE_BYTES} a module may have` };
		}
		const buffer = Buffer.alloc(stat.size);
		let read = 0;
		while (read < buffer.length) {
			const n = readSync(fd, buffer, read, buffer.length - read, read);
			if (n === 0) break;
			read += n;
		}
		return { source: buffer.toString("utf8", 0, read) };
	} catch (error) {
		return {
			refused: `cannot read module ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
		};
	} finally {
		closeSync(fd);
	}
}
