/** The soak's SSE clients (bench/soak.ts): one per connection, on the soak's own event loop. */
import { type IncomingMessage, request } from "node:http";
import type { EventEnvelope, TranscriptRow } from "../src/chamber/wire.js";

/** The soak daemon's address and device token (soak-daemon.ts prints them). */
export interface Daemon {
	port: number;
	token: string;
	pid: number;
}

const now = () => Number(process.hrtime.bigint());

/** One SSE client of one session: every numbered frame's arrival, its rows, and a wake-up on `agent.end`. */
export class Client {
	readonly arrivals: { seq: number; at: number }[] = [];
	readonly rows = new Map<string, number>();
	reconnects = 0;
	private last: number;
	private closed = false;
	private res: IncomingMessage | undefined;
	onAgentEnd: (() => void) | undefined;

	constructor(
		private readonly d: Daemon,
		readonly sessionId: string,
		since: number,
	) {
		this.last = since;
	}

	connect(): Promise<void> {
		return new Promise((ready, fail) => {
			const req = request(
				{
					host: "127.0.0.1",
					port: this.d.port,
					path: `/api/pi/events?session=${this.sessionId}&since=${this.last}`,
					headers: { authorization: `Bearer ${this.d.token}` },
				},
				(res) => {
					if (res.statusCode !== 200) return fail(new Error(`events: ${res.statusCode}`));
					this.res = res;
					res.setEncoding("utf8");
					let buffer = "";
					res.on("data", (chunk: string) => {
						buffer += chunk;
						for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
							this.frame(buffer.slice(0, end));
							buffer = buffer.slice(end + 2);
						}
					});
					res.on("close", () => {
						if (this.closed) return;
						this.reconnects++;
						void this.connect();
					});
					ready();
				},
			);
			req.on("error", (error) => (this.closed ? undefined : fail(error)));
			req.end();
		});
	}

	private frame(frame: string): void {
		const at = now();
		const data = frame.split("\n").find((line) => line.startsWith("data: "));
		if (!data) return;
		const envelope = JSON.parse(data.slice(6)) as EventEnvelope;
		if (envelope.event === "heartbeat" || envelope.event === "session.snapshot") return;
		if (envelope.seq <= this.last) return;
		this.last = envelope.seq;
		this.arrivals.push({ seq: envelope.seq, at });
		if (envelope.event === "transcript.row") {
			const { row } = envelope.payload as { row: TranscriptRow };
			this.rows.set(row.id, (this.rows.get(row.id) ?? 0) + 1);
		} else if (envelope.event === "agent.end") this.onAgentEnd?.();
	}

	close(): void {
		this.closed = true;
		this.res?.destroy();
	}
}
