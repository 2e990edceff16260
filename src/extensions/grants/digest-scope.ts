/**
 * What a grant's digest (identity.ts) leaves out of a package: `.git` directories, at any depth (a checkout's
 * history is large and not code that runs). What it leaves out must also be out of reach of the code it
 * covers: the QuickJS loader (runtimes/quickjs/modules.ts) refuses to import from here, so a file changed under
 * `.git` can never run with a grant given to the code before the change.
 */
export const DIGEST_SKIPS = ".git";

/** Whether `relative` (a path inside the package, `/` or the platform's separator) is outside the digest. */
export function outsideDigest(relative: string): boolean {
	return relative.split(/[\\/]/).includes(DIGEST_SKIPS);
}
