/**
 * pi's agent directory (`~/.pi/agent`, or `$PI_CODING_AGENT_DIR`), at the bottom of pier's layers: the agent, the
 * extension layer and the audit trail all find pi's state through it. Free of SDK imports.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** pi's environment variable for its agent directory (pi's `ENV_AGENT_DIR`). */
export const AGENT_DIR_ENV = "PI_CODING_AGENT_DIR";

export function expandTilde(path: string): string {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return join(homedir(), path.slice(2));
	return path;
}

/** `~/.pi/agent`, or `$PI_CODING_AGENT_DIR`. */
export function agentDir(env: NodeJS.ProcessEnv = process.env): string {
	const fromEnv = env[AGENT_DIR_ENV];
	return fromEnv ? resolve(expandTilde(fromEnv)) : join(homedir(), ".pi", "agent");
}
