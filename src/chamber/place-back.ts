/**
 * A deleted session's file going back into the sessions directory without replacing anything there: a file
 * written at its old path after the delete (a new session, or anything else) stays, and the restored one lands
 * beside it under a new name. The move is exclusive (a hard link fails on an existing name, unlike a rename), so
 * a file that appears between the check and the move is not lost either.
 */
import { constants, copyFileSync, linkSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** How many other names are tried before the restore gives up (each is taken: something is very wrong). */
const MAX_TRIES = 100;

/**
 * The names a restored file may take, its own first. pi finds a session's file by its `_<id>.jsonl` ending, so a
 * new name keeps that ending: `<time>_<id>.jsonl` becomes `<time>-restored-<n>_<id>.jsonl`.
 */
export function restoreNames(path: string, id: string, tries = MAX_TRIES): string[] {
	const dir = dirname(path);
	const name = basename(path);
	const suffix = name.endsWith(`_${id}.jsonl`) ? `_${id}.jsonl` : ".jsonl";
	const stem = name.endsWith(suffix) ? name.slice(0, -suffix.length) : name;
	const names = [path];
	for (let n = 1; n < tries; n++) names.push(join(dir, `${stem}-restored-${n}${suffix}`));
	return names;
}

/** Moves `held` to `path`, or to the first free name beside it; returns where it went. */
export function placeBack(held: string, path: string, id: string): string {
	for (const target of restoreNames(path, id)) {
		if (moveExclusive(held, target)) return target;
	}
	throw new Error(
		`cannot restore ${basename(path)}: ${path} and the ${MAX_TRIES - 1} names beside it are taken; ` +
			`move some of them away and restore again (the session waits in the trash as ${held})`,
	);
}

/** False when `target` exists; the source is removed only once the target holds it. */
function moveExclusive(source: string, target: string): boolean {
	try {
		linkSync(source, target);
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (code === "EEXIST") return false;
		// A filesystem without hard links: an exclusive copy refuses an existing target just the same.
		if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EXDEV" && code !== "EOPNOTSUPP") throw error;
		try {
			copyFileSync(source, target, constants.COPYFILE_EXCL);
		} catch (copyError) {
			if ((copyError as NodeJS.ErrnoException).code === "EEXIST") return false;
			throw copyError;
		}
	}
	rmSync(source, { force: true });
	return true;
}
