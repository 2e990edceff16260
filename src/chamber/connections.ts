/**
 * How long the daemon waits for a request and how many sockets it keeps. Node's defaults hold a slow partial
 * request for up to 60 s of headers plus a 30 s check interval (89 s measured), and never cap open sockets.
 */
import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionLimits {
	/** The whole header block must arrive within this. */
	headersTimeoutMs: number;
	/** The whole request, body included; an answer (the event stream) may last as long as it likes. */
	requestTimeoutMs: number;
	/** How often Node looks for requests past those deadlines: the precision of both. */
	checkIntervalMs: number;
	/** Open sockets at most, event streams included. */
	maxConnections: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
	headersTimeoutMs: 5_000,
	// API bodies are at most 1 MiB; 10 s is ~100 KiB/s, slower than any link a phone would use.
	requestTimeoutMs: 10_000,
	checkIntervalMs: 1_000,
	// A browser tab holds 2 event streams and a few requests; this leaves room for dozens of tabs and devices.
	maxConnections: 256,
};

export function httpServerOptions(limits: ConnectionLimits): ServerOptions {
	return {
		headersTimeout: limits.headersTimeoutMs,
		requestTimeout: limits.requestTimeoutMs,
		connectionsCheckingInterval: limits.checkIntervalMs,
	};
}

/**
 * Past `max` open sockets, a new one makes room by closing the oldest socket that is not serving a request
 * (one still sending its headers, or idle between keep-alive requests): a flood of half-open connections then
 * only evicts itself, and a real request, whose headers arrive at once, gets through. When every socket is
 * answering a request (event streams), the new one is closed at once.
 */
export function capConnections(server: Server, max: number): { readonly open: number } {
	// Insertion order is age: the first idle entry is the oldest.
	const sockets = new Map<Socket, { busy: number }>();
	server.on("connection", (socket: Socket) => {
		const state = { busy: 0 };
		sockets.set(socket, state);
		socket.once("close", () => sockets.delete(socket));
		if (sockets.size <= max) return;
		for (const [other, s] of sockets) {
			if (other !== socket && s.busy === 0) {
				// Forgotten now, not on its "close": the next arrival must not pick the same victim again.
				sockets.delete(other);
				other.destroy();
				return;
			}
		}
		sockets.delete(socket);
		socket.destroy();
	});
	server.on("request", (req, res) => {
		const state = sockets.get(req.socket);
		if (!state) return;
		state.busy++;
		let done = false;
		const finish = () => {
			if (done) return;
			done = true;
			state.busy--;
		};
		res.once("finish", finish);
		res.once("close", finish);
	});
	return {
		get open() {
			return sockets.size;
		},
	};
}
