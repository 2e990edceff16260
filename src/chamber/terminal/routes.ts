/**
 * `/api/pi/sessions/:id/terminals…`: open, list, type into, resize and close a session's terminals, and follow them
 * on one event stream per page and session (the chamber has no WebSocket server; a page also has few connections
 * per host to spend, so the stream carries every terminal of the session). Mounted under `/api/pi`, behind the same
 * auth and origin checks as every route there. A terminal is found only under its own session's id.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { Hono } from "hono";
import type { Chamber } from "../chamber.js";
import { CLIENT_BUFFER_BYTES, SseClient } from "../events/sse.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import { TerminalError, type Terminals } from "./terminals.js";
import { TERMINAL_LIMITS, TerminalBodies } from "./terminal-wire.js";

/**
 * Unsent bytes a page's stream may hold before it is cut off: every terminal's replay (base64) at once, then the
 * usual bound for what follows. Without the room, a session with a few full scrollbacks could never be replayed.
 */
const STREAM_BUFFER_BYTES =
	TERMINAL_LIMITS.perSession * Math.ceil((TERMINAL_LIMITS.scrollbackBytes * 4) / 3) + CLIENT_BUFFER_BYTES;

/** A comment line this often keeps the stream's socket from looking idle. */
const KEEPALIVE_MS = 15_000;

type NodeBindings = { incoming: IncomingMessage; outgoing: ServerResponse };

/** The session's directory, from the running session or its file; looking never starts the session. */
async function sessionCwd(chamber: Chamber, id: string): Promise<string> {
	return (await chamber.view(id, { limit: 1 })).session.cwd;
}

export function terminalRoutes(chamber: Chamber, terminals: Terminals): Hono {
	const app = new Hono();
	// A terminal's own refusals here; everything else (an unknown session) goes to `/api/pi`'s handler.
	app.onError((error, c) => {
		if (error instanceof TerminalError) return jsonError(c, error.status, error.code, error.message);
		throw error;
	});

	app.get("/sessions/:id/terminals", async (c) => {
		const id = c.req.param("id");
		await sessionCwd(chamber, id);
		return c.json({ terminals: terminals.list(id).map((t) => t.view()) });
	});

	// Opening one is the only thing that starts a shell (and, the first time, loads node-pty).
	app.post("/sessions/:id/terminals", jsonBody(TerminalBodies.open), async (c) => {
		const id = c.req.param("id");
		const terminal = await terminals.open(id, await sessionCwd(chamber, id), c.req.valid("json"));
		return c.json({ terminal }, 201);
	});

	app.get("/sessions/:id/terminals/stream", async (c) => {
		const res = (c.env as NodeBindings | undefined)?.outgoing;
		if (!res) return jsonError(c, 500, "internal", "the terminal stream needs the Node server");
		const id = c.req.param("id");
		await sessionCwd(chamber, id);
		const client = new SseClient(res, STREAM_BUFFER_BYTES);
		const detach = terminals.attach(id, client);
		const beat = setInterval(() => {
			if (!client.write(": keepalive\n\n")) stop();
		}, KEEPALIVE_MS);
		const stop = () => {
			clearInterval(beat);
			detach();
		};
		res.on("close", stop);
		return RESPONSE_ALREADY_SENT;
	});

	app.post("/sessions/:id/terminals/:terminalId/input", jsonBody(TerminalBodies.input), async (c) => {
		terminals.find(c.req.param("id"), c.req.param("terminalId")).write(c.req.valid("json").data);
		return c.json({ ok: true });
	});

	app.post("/sessions/:id/terminals/:terminalId/resize", jsonBody(TerminalBodies.resize), async (c) => {
		const { cols, rows } = c.req.valid("json");
		terminals.find(c.req.param("id"), c.req.param("terminalId")).resize(cols, rows);
		return c.json({ ok: true });
	});

	app.delete("/sessions/:id/terminals/:terminalId", async (c) => {
		await terminals.find(c.req.param("id"), c.req.param("terminalId")).close();
		return c.json({ ok: true });
	});

	return app;
}
