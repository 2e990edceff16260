/**
 * Signing a session in to one of its OAuth MCP servers from the chamber: only a server pi's `/mcp` offers "Sign in"
 * for, with the entry pi connected it with, through pi's own sign-in (pi-seams/mcp-signin.ts). Once the tokens are
 * stored, the server is reconnected through pi's `/mcp`, as pi does after its own sign-in.
 */
import { type McpBrowserStep, startMcpServerSignIn } from "../../pi-seams/mcp-signin.js";
import { type McpControl, McpControlError } from "./control.js";
import type { McpServerView } from "./shapes.js";

export type McpSignIn =
	| { kind: "authorized"; server: McpServerView }
	| {
			kind: "redirect";
			authorizationUrl: string;
			state: string;
			/** Finishes with the browser's authorization response, then reconnects the server. */
			complete(response: Parameters<McpBrowserStep["complete"]>[0]): Promise<McpServerView>;
	  };

export async function startSignIn(control: McpControl, name: string, redirectUrl: string): Promise<McpSignIn> {
	const list = await control.list();
	if (!list.available)
		throw new McpControlError("unavailable", "pi's MCP extension does not run in this session (--no-mcp?)");
	const server = list.servers.find((candidate) => candidate.name === name);
	if (!server) {
		const known = list.servers.map((candidate) => candidate.name).join(", ") || "none";
		throw new McpControlError("not_found", `No MCP server named "${name}" in this session (servers: ${known}).`);
	}
	if (!server.actions.includes("signin"))
		throw new McpControlError(
			"not_offered",
			`MCP server "${name}" is ${server.stateText}: pi offers a sign-in only to a server that needs one.`,
		);
	const entry = control.remoteEntry(name);
	if (!entry) throw new McpControlError("unavailable", `pi has not connected MCP server "${name}" in this session.`);
	let started: Awaited<ReturnType<typeof startMcpServerSignIn>>;
	try {
		started = await startMcpServerSignIn(entry, redirectUrl);
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		throw new McpControlError("signin_failed", `Sign-in to MCP server "${name}" failed: ${message}`);
	}
	const reconnect = () => control.act(name, { kind: "reconnect" });
	if (started.kind === "authorized") return { kind: "authorized", server: await reconnect() };
	return {
		kind: "redirect",
		authorizationUrl: started.authorizationUrl,
		state: started.state,
		complete: async (response) => {
			try {
				await started.complete(response);
			} catch (error) {
				const message = error instanceof Error ? error.message : String(error);
				throw new McpControlError("signin_failed", `Sign-in to MCP server "${name}" failed: ${message}`);
			}
			return reconnect();
		},
	};
}
