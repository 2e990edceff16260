/**
 * How long the daemon waits for a request and how many sockets it keeps, by pool (connection-pools.ts). Node's
 * defaults hold a slow partial request for up to 60 s of headers plus a 30 s check interval (89 s measured), and
 * never cap open sockets.
 */
import type { ServerOptions } from "node:http";

export interface ConnectionLimits {
	/** The whole header block must arrive within this. */
	headersTimeoutMs: number;
	/** The whole request, body included; an answer (the event stream) may last as long as it likes. */
	requestTimeoutMs: number;
	/** How often Node looks for requests past those deadlines: the precision of both. */
	checkIntervalMs: number;
	/** Sockets of signed-in clients (a request's credentials verified), event streams included. */
	maxConnections: number;
	/** Sockets whose request came without valid credentials (sign-in pages, logins), from all addresses. */
	maxUnauthenticated: number;
	/** …and from one client address (every loopback client shares one). */
	maxUnauthenticatedPerAddress: number;
	/** Sockets that have not sent a whole request head yet; each has `headersTimeoutMs` to do so. */
	maxPending: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
	headersTimeoutMs: 5_000,
	// API bodies are at most 1 MiB; 10 s is ~100 KiB/s, slower than any link a phone would use.
	requestTimeoutMs: 10_000,
	checkIntervalMs: 1_000,
	// A browser tab holds 2 event streams and a few requests; this leaves room for dozens of tabs and devices.
	maxConnections: 256,
	// A sign-in page loads a handful of files at once; a quarter of the signed-in share, and 16 per address.
	maxUnauthenticated: 64,
	maxUnauthenticatedPerAddress: 16,
	// Cheap to hold (no request yet) and gone within the header timeout; generous so that, under a flood from
	// the client's own address, a real socket's head is read before its turn to be evicted comes.
	maxPending: 1024,
};

export function httpServerOptions(limits: ConnectionLimits): ServerOptions {
	return {
		headersTimeout: limits.headersTimeoutMs,
		requestTimeout: limits.requestTimeoutMs,
		connectionsCheckingInterval: limits.checkIntervalMs,
	};
}
