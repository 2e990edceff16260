/**
 * Which sockets the daemon keeps, in three pools (limits in connections.ts):
 * - pending: connected, first request head not yet in. Past the bound, the oldest pending socket of the address
 *   holding the most goes: a flood of half-open sockets evicts itself, and a real request, whose head arrives at
 *   once, leaves this pool before its turn comes.
 * - unauthenticated: a request arrived without valid credentials. A small share in all and a smaller one per
 *   client address; past either, an idle one makes room, else the new request is answered `503` and its socket
 *   closed. Sockets already holding a slot (a slow login body) keep it until their request timeout.
 * - authenticated: a request's credentials verified (checked when its head arrives, before any route runs). Never
 *   evicted for an unauthenticated socket; past their own bound an idle one makes room, else `503`.
 * A socket moves from pending to one of the others with its first request, and from unauthenticated to
 * authenticated with its first verified one. Loopback clients share one address, so the per-address bound holds a
 * flood back only as a whole; a signed-in client on that address is still served because its sockets count in
 * the authenticated pool from the moment its credentials verify.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface PoolLimits {
	maxPending: number;
	maxUnauthenticated: number;
	maxUnauthenticatedPerAddress: number;
	maxAuthenticated: number;
}

type PoolName = "pending" | "unauthenticated" | "authenticated";

interface Conn {
	socket: Socket;
	address: string;
	pool: PoolName;
	/** Requests being answered on it (an event stream stays busy while it lasts). */
	busy: number;
}

/** Sockets of one pool, each address's in age order (a Set keeps insertion order). */
class Pool {
	private readonly byAddress = new Map<string, Set<Conn>>();
	size = 0;

	add(conn: Conn): void {
		const set = this.byAddress.get(conn.address) ?? new Set<Conn>();
		this.byAddress.set(conn.address, set);
		set.add(conn);
		this.size++;
	}

	delete(conn: Conn): void {
		const set = this.byAddress.get(conn.address);
		if (!set?.delete(conn)) return;
		this.size--;
		if (set.size === 0) this.byAddress.delete(conn.address);
	}

	count(address: string): number {
		return this.byAddress.get(address)?.size ?? 0;
	}

	/** The oldest socket of `address` (or of the address holding the most) that `fits`. */
	oldest(fits: (c: Conn) => boolean, address?: string): Conn | undefined {
		const sets = address === undefined ? [...this.byAddress.values()].sort((a, b) => b.size - a.size) : [];
		if (address !== undefined) sets.push(this.byAddress.get(address) ?? new Set());
		for (const set of sets) for (const conn of set) if (fits(conn)) return conn;
		return undefined;
	}
}

const idle = (c: Conn) => c.busy === 0;

export interface ConnectionPools {
	/** The request listener to create the server with: sorts the request's socket, then runs `listener` or refuses. */
	wrap(listener: RequestListener): RequestListener;
	/** Starts sorting the server's sockets. */
	attach(server: Server): void;
	/** Sockets per pool (tests and diagnostics). */
	counts(): Record<PoolName, number>;
}

/** `authenticated(req)` verifies a request's credentials, as the routes will. */
export function connectionPools(limits: PoolLimits, authenticated: (req: IncomingMessage) => boolean): ConnectionPools {
	const conns = new Map<Socket, Conn>();
	const pools: Record<PoolName, Pool> = {
		pending: new Pool(),
		unauthenticated: new Pool(),
		authenticated: new Pool(),
	};
	const drop = (conn: Conn) => {
		// Forgotten now, not on its "close": the next arrival must not pick the same victim again.
		pools[conn.pool].delete(conn);
		conns.delete(conn.socket);
		conn.socket.destroy();
	};

	/** Finds room in `to` for `conn`, evicting an idle socket if needed; false when there is none. */
	const admit = (conn: Conn, to: "unauthenticated" | "authenticated"): boolean => {
		const pool = pools[to];
		if (to === "unauthenticated" && pool.count(conn.address) >= limits.maxUnauthenticatedPerAddress) {
			const victim = pool.oldest(idle, conn.address);
			if (!victim) return false;
			drop(victim);
		}
		const max = to === "unauthenticated" ? limits.maxUnauthenticated : limits.maxAuthenticated;
		if (pool.size >= max) {
			const victim = pool.oldest(idle);
			if (!victim) return false;
			drop(victim);
		}
		pools[conn.pool].delete(conn);
		conn.pool = to;
		pool.add(conn);
		return true;
	};

	const onConnection = (socket: Socket) => {
		const conn: Conn = { socket, address: socket.remoteAddress ?? "unknown", pool: "pending", busy: 0 };
		conns.set(socket, conn);
		pools.pending.add(conn);
		socket.once("close", () => {
			if (conns.get(socket) !== conn) return;
			conns.delete(socket);
			pools[conn.pool].delete(conn);
		});
		if (pools.pending.size > limits.maxPending) {
			const victim = pools.pending.oldest(() => true);
			if (victim) drop(victim);
		}
	};

	return {
		wrap: (listener) => (req, res) => {
			const conn = conns.get(req.socket);
			if (!conn) {
				// Evicted while its head was parsed: nobody will read the answer.
				req.socket.destroy();
				return;
			}
			if (conn.pool !== "authenticated") {
				const to = authenticated(req) ? "authenticated" : "unauthenticated";
				if (conn.pool !== to && !admit(conn, to)) return refuse(conn, res, to);
			}
			conn.busy++;
			let done = false;
			const finish = () => {
				if (done) return;
				done = true;
				conn.busy--;
			};
			res.once("finish", finish);
			res.once("close", finish);
			listener(req, res);
		},
		attach: (server) => {
			server.on("connection", onConnection);
		},
		counts: () => ({
			pending: pools.pending.size,
			unauthenticated: pools.unauthenticated.size,
			authenticated: pools.authenticated.size,
		}),
	};
}

function refuse(conn: Conn, res: ServerResponse, pool: "unauthenticated" | "authenticated"): void {
	const message =
		pool === "authenticated"
			? "every connection for signed-in clients is busy; retry in 1 s"
			: "too many connections without a sign-in from this address or in all; retry in 1 s, or sign in";
	const body = JSON.stringify({ error: { code: "busy", message } });
	res.writeHead(503, {
		"content-type": "application/json",
		"content-length": Buffer.byteLength(body),
		"retry-after": "1",
		connection: "close",
	});
	// The body the client may still be trickling is never read: the socket goes once the answer is out.
	res.end(body, () => conn.socket.destroy());
}
