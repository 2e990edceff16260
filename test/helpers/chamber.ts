/**
 * Drives a real `pier serve`: spawns the bin on a free loopback port, signs in over HTTP, and reads the
 * event stream over a real socket. Shared by the chamber's HTTP tests and the browser tests.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { request } from "node:http";
import { cleanEnv, PIER_BIN } from "./pier-cli.js";

export interface Serve {
	url: string;
	pairingUrl: string;
	process: ChildProcess;
	output(): string;
	/** SIGTERM, then waits for the exit code. */
	stop(): Promise<number | null>;
}

export async function startServe(
	args: readonly string[],
	options: { agentDir: string; cwd?: string; env?: Record<string, string> },
): Promise<Serve> {
	const child = spawn(process.execPath, [PIER_BIN, "serve", "--port", "0", ...args], {
		cwd: options.cwd ?? options.agentDir,
		env: cleanEnv(options.agentDir, options.env),
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	child.stdout!.setEncoding("utf8").on("data", (d: string) => {
		out += d;
	});
	child.stderr!.setEncoding("utf8").on("data", (d: string) => {
		out += d;
	});
	const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
	const started = await new Promise<{ url: string; pairingUrl: string }>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`pier serve did not start:\n${out}`)), 30_000);
		const check = () => {
			const url = /pier chamber: (http:\/\/\S+)/.exec(out)?.[1];
			const pairingUrl = /(http:\/\/\S+#pair=\S+)/.exec(out)?.[1];
			if (url && pairingUrl) {
				clearTimeout(timer);
				resolve({ url, pairingUrl });
			}
		};
		child.stdout!.on("data", check);
		child.on("exit", (code) => {
			clearTimeout(timer);
			reject(new Error(`pier serve exited with ${code}:\n${out}`));
		});
	});
	return {
		...started,
		process: child,
		output: () => out,
		stop: async () => {
			if (child.exitCode === null) child.kill("SIGTERM");
			return exited;
		},
	};
}

export interface Reply<T = unknown> {
	status: number;
	body: T;
	headers: Headers;
}

/** A signed-in (or not) HTTP client for the chamber's API. */
export class ApiClient {
	cookie: string | undefined;
	/** The browser key that login and pairing return; the daemon wants it next to the cookie. */
	key: string | undefined;
	bearer: string | undefined;

	constructor(readonly base: string) {}

	headers(extra: Record<string, string> = {}): Record<string, string> {
		return {
			...(this.cookie ? { cookie: this.cookie } : {}),
			...(this.cookie && this.key ? { "x-pier-key": this.key } : {}),
			...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
			...extra,
		};
	}

	async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
		const response = await fetch(new URL(path, this.base), {
			method,
			headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});
		const setCookie = response.headers.get("set-cookie");
		if (setCookie?.startsWith("pier_session=")) this.cookie = setCookie.split(";")[0];
		const text = await response.text();
		const parsed = (text ? JSON.parse(text) : undefined) as T;
		const key = (parsed as { key?: unknown } | undefined)?.key;
		if (setCookie?.startsWith("pier_session=") && typeof key === "string") this.key = key;
		return { status: response.status, body: parsed, headers: response.headers };
	}

	async pair(pairingUrl: string): Promise<void> {
		const token = new URL(pairingUrl).hash.replace(/^#pair=/, "");
		const reply = await this.call("POST", "/api/auth/pair", { token });
		if (reply.status !== 200) throw new Error(`pairing failed: ${JSON.stringify(reply.body)}`);
	}

	async login(password: string): Promise<Reply> {
		return this.call("POST", "/api/auth/login", { password });
	}

	/** Creates a session in the daemon's directory and opens its stream, up to the first snapshot. */
	async newSession(): Promise<{ id: string; stream: EventReader }> {
		const created = await this.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		if (created.status !== 201) throw new Error(`creating a session failed: ${JSON.stringify(created.body)}`);
		const id = created.body.session.id;
		const stream = this.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
		return { id, stream };
	}

	/** A session's stream is preceded by `POST …/open`, as the web app does: a GET alone starts nothing. */
	events(query: string, lastEventId?: number): EventReader {
		const session = new URLSearchParams(query).get("session");
		const before = session
			? this.call("POST", `/api/pi/sessions/${encodeURIComponent(session)}/open`, {})
			: Promise.resolve();
		return new EventReader(
			new URL(`/api/pi/events?${query}`, this.base),
			{
				...this.headers(),
				...(lastEventId !== undefined ? { "last-event-id": String(lastEventId) } : {}),
			},
			before,
		);
	}
}

export interface Envelope {
	version: number;
	event: string;
	seq: number;
	sessionId: string;
	payload: Record<string, unknown> & { [key: string]: unknown };
}

/** An SSE client on a raw socket that keeps every event it parsed. */
export class EventReader {
	readonly events: Envelope[] = [];
	status: number | undefined;
	private buffer = "";
	private waiters: (() => void)[] = [];
	private req: ReturnType<typeof request> | undefined;
	closed = false;
	readonly ready: Promise<number>;

	constructor(url: URL, headers: Record<string, string>, before: Promise<unknown> = Promise.resolve()) {
		let onStatus: (status: number) => void = () => {};
		this.ready = new Promise((done) => {
			onStatus = done;
		});
		// An open that fails still lets the GET run: its answer (404, 409) is what the test looks at.
		void before
			.catch(() => {})
			.then(() => {
				if (!this.closed) this.connect(url, headers, onStatus);
			});
	}

	private connect(url: URL, headers: Record<string, string>, onStatus: (status: number) => void): void {
		this.req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
			this.status = res.statusCode;
			onStatus(res.statusCode ?? 0);
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => this.feed(chunk));
			res.on("close", () => {
				this.closed = true;
				this.wake();
			});
		});
		this.req.on("error", () => {
			this.closed = true;
			onStatus(0);
			this.wake();
		});
		this.req.end();
	}

	private feed(chunk: string): void {
		this.buffer += chunk;
		let end = this.buffer.indexOf("\n\n");
		while (end >= 0) {
			const block = this.buffer.slice(0, end);
			this.buffer = this.buffer.slice(end + 2);
			const data = block
				.split("\n")
				.filter((l) => l.startsWith("data: "))
				.map((l) => l.slice(6))
				.join("\n");
			if (data) this.events.push(JSON.parse(data) as Envelope);
			end = this.buffer.indexOf("\n\n");
		}
		this.wake();
	}

	private wake(): void {
		for (const w of this.waiters.splice(0)) w();
	}

	/** Waits for the first event (from the start) that satisfies `match`. */
	async waitFor(match: (e: Envelope) => boolean, what = "event", timeoutMs = 20_000): Promise<Envelope> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.events.find(match);
			if (found) return found;
			if (this.closed) throw new Error(`stream closed before ${what}; got ${this.names()}`);
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${this.names()}`);
			await new Promise<void>((done) => {
				const timer = setTimeout(done, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					done();
				});
			});
		}
	}

	names(): string {
		return this.events.map((e) => `${e.seq}:${e.event}`).join(" ");
	}

	close(): void {
		this.closed = true;
		this.req?.destroy();
	}
}

export interface ServedChamber {
	serve: Serve;
	api: ApiClient;
}

/**
 * The usual start of a chamber test: `pier serve` with its state in `stateDir` and a UI password, and a client
 * signed in with it. `args` are the rest of the command line (extensions, flags, `--no-examples`…).
 */
export async function servedChamber(
	args: readonly string[],
	options: { agentDir: string; cwd: string; stateDir: string; password?: string; env?: Record<string, string> },
): Promise<ServedChamber> {
	const password = options.password ?? "pw";
	const serve = await startServe([...args, "--state-dir", options.stateDir, "--ui-password", password], options);
	const api = new ApiClient(serve.url);
	const login = await api.login(password);
	if (login.status !== 200) {
		await serve.stop();
		throw new Error(
			`login to the chamber failed with ${login.status}: ${JSON.stringify(login.body)}\n${serve.output()}`,
		);
	}
	return { serve, api };
}
