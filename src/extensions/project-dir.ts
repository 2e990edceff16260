/**
 * pi's project-local configuration directory. Lives under `src/extensions` (not `src/agent`) because the
 * extension layer needs it and must not depend on the agent layer; `src/agent/paths.ts` re-exports it.
 */
import { join } from "node:path";

/** Project-local pi configuration directory (`<cwd>/.pi`). */
export function projectConfigDir(cwd: string): string {
	return join(cwd, ".pi");
}
