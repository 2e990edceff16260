/**
 * The chamber's event stream: one fetch-based event source (sse.ts, so it can carry the browser key) plus
 * the sequence bookkeeping the API asks of a client.
 *
 * Whenever the source closes (a 401 after the sign-in ended, a 502 while the daemon restarts, a dropped
 * connection) we ask `/api/auth/status` whether it is worth retrying and open a new one with
 * `since=<lastSeq>`. Following a session does not start its runtime: the daemon streams a session that does not
 * run from its file, and the first action (a prompt, a command) starts it on the same stream.
 */
import { authHeaders } from "./api.js";
import { CLOSED, FetchEventSource, OPEN, type StreamSource } from "./sse.js";
import type { AnyEnvelope, EventName } from "./types.js";

export type StreamStatus = "connecting" | "live" | "reconnecting";

/** Every named event the server sends; an EventSource only delivers names it has listeners for. */
// A record, so adding an event to wire.ts without listening for it here is a type error.
const EVENT_NAMES = Object.keys({
	"session.snapshot": true,
	"session.state": true,
	"session.info": true,
	"session.model": true,
	"session.commands": true,
	"session.usage": true,
	"session.queue": true,
	"session.branch": true,
	"bash.start": true,
	"bash.update": true,
	"bash.end": true,
	"sessions.changed": true,
	"agent.start": true,
	"agent.end": true,
	"message.start": true,
	"message.delta": true,
	"message.end": true,
	"tool.start": true,
	"tool.update": true,
	"tool.end": true,
	"transcript.row": true,
	"transcript.drawn": true,
	"extension.ui": true,
	"extension.app": true,
	"extension.status": true,
	"extension.widget": true,
	"extension.title": true,
	"extension.notify": true,
	"extension.editor": true,
	"extension.dialog": true,
	"extension.dialog.dismiss": true,
	"extension.overlay": true,
	"extension.custom.open": true,
	"extension.custom.frame": true,
	"extension.custom.close": true,
	"extension.error": true,
	heartbeat: true,
	"session.replaced": true,
} satisfies Record<EventName, true>) as EventName[];

export interface StreamOptions {
	/** Omit for the daemon stream (`sessions.changed`). */
	sessionId?: string;
	/** The last sequence the caller already has (a SessionView's `seq`). */
	since?: number;
	/** Snapshots carry only the latest this many rows (older ones are fetched on demand). */
	rows?: number;
	/**
	 * Drop events at or below the last sequence seen. Off for the daemon stream: its events are idempotent
	 * and its numbering restarts with the daemon, so deduplicating could swallow every later change.
	 */
	dedupe?: boolean;
	onEvent(env: AnyEnvelope): void;
	onStatus(status: StreamStatus): void;
	onUnauthorized(): void;
	/** The server's numbering went backwards (a daemon restart without a snapshot): reload from scratch. */
	onResync?(): void;
	createEventSource?: (url: string) => StreamSource;
	checkAuth?: () => Promise<boolean | undefined>;
}

const HEARTBEAT_MS = 15_000;
/** Three missed heartbeats: the connection is half-open even if the browser has not noticed. */
const STALE_MS = HEARTBEAT_MS * 3;
const MAX_RETRY_MS = 15_000;

export class EventStream {
	private source: StreamSource | undefined;
	private lastSeq: number | undefined;
	private retryDelay = 500;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private watchdog: ReturnType<typeof setInterval> | undefined;
	private lastActivity = Date.now();
	private firstSinceOpen = false;
	private closed = false;
	private status: StreamStatus | undefined;

	constructor(private readonly opts: StreamOptions) {
		this.lastSeq = opts.since;
	}

	get seq(): number | undefined {
		return this.lastSeq;
	}

	start(): void {
		this.closed = false;
		this.connect();
		this.watchdog = setInterval(() => this.checkStale(), HEARTBEAT_MS);
	}

	close(): void {
		this.closed = true;
		clearTimeout(this.retryTimer);
		clearInterval(this.watchdog);
		this.source?.close();
		this.source = undefined;
	}

	private url(): string {
		const params = new URLSearchParams();
		if (this.opts.sessionId) params.set("session", this.opts.sessionId);
		if (this.lastSeq !== undefined) params.set("since", String(this.lastSeq));
		if (this.opts.rows !== undefined) params.set("rows", String(this.opts.rows));
		const query = params.toString();
		return query ? `/api/pi/events?${query}` : "/api/pi/events";
	}

	private setStatus(status: StreamStatus): void {
		if (status === this.status) return;
		this.status = status;
		this.opts.onStatus(status);
	}

	private connect(): void {
		if (this.closed) return;
		this.setStatus(this.status === undefined ? "connecting" : "reconnecting");
		const create = this.opts.createEventSource ?? ((url) => new FetchEventSource(url, { headers: authHeaders() }));
		const source = create(this.url());
		this.source = source;
		this.lastActivity = Date.now();
		source.onopen = () => {
			if (this.source !== source) return;
			this.retryDelay = 500;
			this.firstSinceOpen = true;
			this.lastActivity = Date.now();
			this.setStatus("live");
		};
		source.onerror = () => {
			if (this.source !== source || this.closed) return;
			this.setStatus("reconnecting");
			// An EventSource passed in may retry by itself (CONNECTING); ours never does (CLOSED).
			if (source.readyState === CLOSED) {
				this.source = undefined;
				void this.retry();
			}
		};
		for (const name of EVENT_NAMES) {
			source.addEventListener(name, (e) => {
				if (this.source === source) this.receive(e as MessageEvent<string>);
			});
		}
	}

	private async retry(): Promise<void> {
		const check = this.opts.checkAuth ?? defaultCheckAuth;
		const authed = await check();
		if (this.closed) return;
		if (authed === false) {
			this.close();
			this.opts.onUnauthorized();
			return;
		}
		clearTimeout(this.retryTimer);
		this.retryTimer = setTimeout(() => this.connect(), this.retryDelay);
		this.retryDelay = Math.min(this.retryDelay * 2, MAX_RETRY_MS);
	}

	private checkStale(): void {
		if (this.closed || !this.source || this.source.readyState !== OPEN) return;
		if (Date.now() - this.lastActivity < STALE_MS) return;
		this.source.close();
		this.source = undefined;
		this.setStatus("reconnecting");
		void this.retry();
	}

	private receive(e: MessageEvent<string>): void {
		this.lastActivity = Date.now();
		let env: AnyEnvelope;
		try {
			env = JSON.parse(e.data) as AnyEnvelope;
		} catch {
			return;
		}
		if (!env || typeof env !== "object" || typeof env.event !== "string" || typeof env.seq !== "number") return;
		const first = this.firstSinceOpen;
		this.firstSinceOpen = false;
		const dedupe = this.opts.dedupe ?? true;

		if (env.event === "session.snapshot") {
			this.lastSeq = typeof env.payload.seq === "number" ? env.payload.seq : env.seq;
			this.opts.onEvent(env);
			return;
		}
		const behind = this.lastSeq !== undefined && env.seq < this.lastSeq;
		if (env.event === "heartbeat") {
			// A heartbeat carries the server's current sequence; one below ours means the server forgot our history.
			if (dedupe && behind) this.resync();
			return;
		}
		if (dedupe && this.lastSeq !== undefined && env.seq <= this.lastSeq) {
			// A replay starts right after the cursor, so an old number first thing after a reconnect is a restart.
			if (first && behind) this.resync();
			return;
		}
		this.lastSeq = env.seq;
		this.opts.onEvent(env);
		// A move in the session tree (/tree) changes the rows wholesale: fetch the view again, as after a gap.
		if (env.event === "session.branch") this.resync();
	}

	private resync(): void {
		if (this.opts.onResync) this.opts.onResync();
	}
}

async function defaultCheckAuth(): Promise<boolean | undefined> {
	try {
		const res = await fetch("/api/auth/status", { credentials: "same-origin", headers: authHeaders() });
		if (!res.ok) return undefined;
		const body = (await res.json()) as { authenticated?: unknown };
		return body.authenticated === true;
	} catch {
		// The daemon is down: keep retrying rather than signing out.
		return undefined;
	}
}
