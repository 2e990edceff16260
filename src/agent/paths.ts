/**
 * Where pi keeps its state. pier shares these locations with the pi CLI so that
 * sessions, models.json, auth.json and extensions are one set for both tools.
 *
 * Kept free of SDK imports: `pier --version` and `pier sessions --help` must not
 * pay for loading the pi SDK.
 */
import { join, resolve } from "node:path";

// The bottom layer owns these (the audit trail and the extension layer need them and must not import the agent
// layer); the agent keeps its old names.
export { AGENT_DIR_ENV, agentDir, expandTilde } from "../agent-dir.js";
import { agentDir, expandTilde } from "../agent-dir.js";

/** pi's environment variable that moves only the session directory. */
export const SESSION_DIR_ENV = "PI_CODING_AGENT_SESSION_DIR";

/**
 * pi's per-project session directory: `<agentDir>/sessions/--<cwd with separators as dashes>--`.
 * `$PI_CODING_AGENT_SESSION_DIR` replaces the whole directory, as in pi.
 */
export function sessionDirFor(cwd: string, dir: string = agentDir(), env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env[SESSION_DIR_ENV];
	if (fromEnv) return resolve(expandTilde(fromEnv));
	const safe = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
	return join(dir, "sessions", safe);
}

// The extension layer owns this helper (it must not import from src/agent); the agent keeps its old name.
export { projectConfigDir } from "../extensions/project-dir.js";
