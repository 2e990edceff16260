/**
 * `/api/pi/sessions/:id/mcp`: a session's MCP servers as pi's MCP extension has them, and pi's `/mcp` actions on
 * them (agent/mcp/control.ts). A GET reads a running session and never starts one; an action opens the session.
 * A sign-in starts here and finishes at the daemon's OAuth callback (mcp-signin.ts).
 */
import type { Context, Hono } from "hono";
import { McpControlError, type McpAction } from "../agent/mcp/control.js";
import { startSignIn } from "../agent/mcp/signin.js";
import type { Chamber } from "./chamber.js";
import { jsonError } from "./http-errors.js";
import { jsonBody } from "./json-body.js";
import { callbackUrl, signInsOf } from "./mcp-signin.js";
import { SessionError, type SessionErrorCode } from "./session-error.js";
import { Bodies } from "./wire.js";

const CODES: Record<McpControlError["code"], SessionErrorCode> = {
	unavailable: "mcp_unavailable",
	not_found: "not_found",
	not_offered: "mcp_not_offered",
	save_failed: "mcp_save_failed",
	signin_failed: "mcp_signin_failed",
};

/** A server's name as pi's mcp.json may hold it: printable, no slashes, at most 128 characters. */
function nameProblem(name: string): string | undefined {
	if (name.length === 0 || name.length > 128) return "server: 1 to 128 characters";
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
	if (/[\u0000-\u001f\u007f/\\]/.test(name)) return "server: no control characters or slashes";
	return undefined;
}

async function run<T>(work: () => Promise<T>): Promise<T> {
	try {
		return await work();
	} catch (error) {
		if (error instanceof McpControlError) throw new SessionError(CODES[error.code], error.message);
		throw error;
	}
}

export function mcpRoutes(app: Hono, chamber: Chamber): void {
	app.get("/sessions/:id/mcp", async (c) => {
		const live = await chamber.running(c.req.param("id"));
		return c.json(await run(() => live.pier.mcp.list()));
	});

	const act = async (c: Context, action: McpAction): Promise<Response> => {
		const server = c.req.param("server") ?? "";
		const problem = nameProblem(server);
		if (problem) return jsonError(c, 400, "bad_request", problem);
		const live = await chamber.get(c.req.param("id") ?? "");
		return c.json({ server: await run(() => live.pier.mcp.act(server, action)) });
	};

	for (const kind of ["enable", "disable"] as const)
		app.post(`/sessions/:id/mcp/:server/${kind}`, jsonBody(Bodies.mcpEnable), (c) =>
			act(c, { kind, project: c.req.valid("json").project === true }),
		);
	app.post("/sessions/:id/mcp/:server/reconnect", jsonBody(Bodies.empty), (c) => act(c, { kind: "reconnect" }));
	// pi's sign-in with this daemon's callback as the redirect URI (mcp-signin.ts): the authorization URL to open,
	// or the server itself when pi's stored refresh token was enough.
	app.post("/sessions/:id/mcp/:server/signin", jsonBody(Bodies.empty), async (c) => {
		const server = c.req.param("server");
		const problem = nameProblem(server);
		if (problem) return jsonError(c, 400, "bad_request", problem);
		const live = await chamber.get(c.req.param("id"));
		const started = await run(() => startSignIn(live.pier.mcp, server, callbackUrl(c.req.url)));
		if (started.kind === "authorized") return c.json({ server: started.server });
		signInsOf(chamber).add(started.state, server, started.complete);
		return c.json({ authorizationUrl: started.authorizationUrl });
	});
	app.post("/sessions/:id/mcp/:server/exposure", jsonBody(Bodies.mcpExposure), (c) =>
		act(c, { kind: "exposure", exposure: c.req.valid("json").exposure }),
	);
}
