/** What the MCP tests share: the suite's own stdio MCP servers, pid markers, and a project config full of secrets. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./pier-cli.js";

/** A real stdio MCP server (tools `echo`, `pid`); with MCP_PID_FILE set it appends its pid there. */
export const ECHO_SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "echo-server.mjs");

/** The pids a server fixture wrote to its MCP_PID_FILE, in start order; none when it never started. */
export function pidsIn(file: string): number[] {
	return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map(Number) : [];
}

/** Whether a process is still alive (signal 0). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * An `mcp.json` with a stdio server (marking its start in `pids`) and a remote one, each carrying a secret in every
 * place a config may hold one; `MCP_SECRETS` matches any of them, so a test can prove none is shown.
 */
export function mcpConfigWithSecrets(pids: string): object {
	return {
		mcpServers: {
			echo: {
				command: "node",
				args: [ECHO_SERVER],
				exposure: "direct",
				env: { MCP_PID_FILE: pids, API_TOKEN: "env-secret-value" },
			},
			docs: {
				url: "http://someone:url-password@127.0.0.1:9/mcp?token=query-secret#fragment-secret",
				headers: { Authorization: "Bearer header-secret" },
			},
		},
	};
}

export const MCP_SECRETS = /env-secret-value|url-password|someone|query-secret|fragment-secret|header-secret/;
