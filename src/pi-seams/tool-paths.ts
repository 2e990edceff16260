/**
 * How pi's file tools turn their `path` argument into the file they touch (`core/tools/path-utils.js`, not
 * exported): `@` stripped, `~` expanded, unicode spaces normalized, resolved against the session's cwd. Permission
 * rules check that same path, not a second guess at it.
 */
import { moduleExports, piModuleNow, type Seam } from "./seam.js";

const MODULE = "dist/core/tools/path-utils.js";

interface PathUtils {
	resolveToCwd(filePath: string, cwd: string): string;
}

/** The absolute path pi's read, write, edit, grep, find and ls act on for `path` in `cwd`. */
export function toolPath(path: string, cwd: string): string {
	return piModuleNow<PathUtils>(MODULE).resolveToCwd(path, cwd);
}

const id = { name: "tool-paths", file: "src/pi-seams/tool-paths.ts" };

export const seam: Seam = {
	...id,
	members: ["core/tools/path-utils.js (unexported): resolveToCwd(filePath, cwd)"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { resolveToCwd: 2 } }),
};
