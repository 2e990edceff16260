/**
 * Raw sockets against a real `pier serve`, for the connection tests: half-sent requests, trickled bodies, floods
 * that reconnect, and requests on fresh sockets from a chosen loopback address (all of 127.0.0.0/8 reaches it).
 */
import { Agent, request } from "node:http";
import { connect } from "node:net";

export function hostOf(url: string): { host: string; port: number } {
	const u = new URL(url);
	return { host: u.hostname, port: Number(u.port) };
}

/**
 * A raw socket that sends `head` and then, every `everyMs`, `drip`; `connected` resolves once the handshake is
 * done (or the socket is gone), `closed` when the daemon closes it, with what it answered.
 */
export function slowRequest(url: string, head: string, drip?: string, everyMs = 500, localAddress?: string) {
	const { host, port } = hostOf(url);
	const started = Date.now();
	let answer = "";
	const socket = connect({ port, host, ...(localAddress ? { localAddress } : {}) });
	socket.setEncoding("utf8");
	socket.on("data", (d: string) => {
		answer += d;
	});
	socket.on("error", () => {});
	socket.write(head);
	const timer = drip ? setInterval(() => socket.writable && socket.write(drip), everyMs) : undefined;
	const connected = new Promise<void>((done) => {
		socket.once("connect", () => done());
		socket.once("close", () => done());
	});
	const closed = new Promise<{ ms: number; answer: string }>((done) =>
		socket.on("close", () => {
			clearInterval(timer);
			done({ ms: Date.now() - started, answer });
		}),
	);
	return { socket, connected, closed, answer: () => answer };
}

/** A login whose body never finishes: the head at once, then a space every 500 ms. */
export function tricklingLogin(url: string, localAddress?: string) {
	const { host, port } = hostOf(url);
	return slowRequest(
		url,
		`POST /api/auth/login HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"pass`,
		" ",
		500,
		localAddress,
	);
}

/** `count` trickling logins, each opened again as soon as the daemon closes it, until `stop()`. */
export function tricklingFlood(url: string, count: number) {
	let running = true;
	let opened = 0;
	const answers = new Map<string, number>();
	const sockets = new Set<ReturnType<typeof tricklingLogin>>();
	const open = () => {
		if (!running) return;
		const s = tricklingLogin(url);
		opened++;
		sockets.add(s);
		void s.closed.then(({ answer }) => {
			sockets.delete(s);
			const status = /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1] ?? "closed";
			answers.set(status, (answers.get(status) ?? 0) + 1);
			open();
		});
	};
	for (let i = 0; i < count; i++) open();
	return {
		/** How the daemon ended the flood's sockets so far, by status ("closed": no answer). */
		answers: () => Object.fromEntries(answers),
		opened: () => opened,
		stop: async () => {
			running = false;
			const left = [...sockets];
			for (const s of left) s.socket.destroy();
			await Promise.all(left.map((s) => s.closed));
		},
	};
}

/** One request on a fresh socket (no keep-alive), from `localAddress` if given. */
export async function freshRequest(
	url: string,
	path: string,
	headers: Record<string, string> = {},
	localAddress?: string,
): Promise<{ status: number; body: string }> {
	const agent = new Agent({ keepAlive: false });
	try {
		return await new Promise((resolve, reject) => {
			const req = request(
				new URL(path, url),
				{ agent, headers, timeout: 30_000, ...(localAddress ? { localAddress } : {}) },
				(res) => {
					let body = "";
					res.setEncoding("utf8");
					res.on("data", (d: string) => {
						body += d;
					});
					res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
				},
			);
			req.on("timeout", () => req.destroy(new Error("no answer in 30 s")));
			req.on("error", reject);
			req.end();
		});
	} finally {
		agent.destroy();
	}
}
