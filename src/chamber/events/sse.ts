/** An SSE client on a Node response, with a bounded send buffer: a client that stops reading is dropped. */
import type { ServerResponse } from "node:http";
import { API_VERSION, API_VERSION_HEADER } from "../openapi/version.js";
import type { EventSink } from "./channel.js";

/** Past this many unsent bytes the client is cut off; it reconnects with its cursor and catches up. */
export const CLIENT_BUFFER_BYTES = 1024 * 1024;

export class SseClient implements EventSink {
	private closed = false;
	/** Unsent bytes tolerated right now: the bound, or more while one oversized frame drains. */
	private allowance: number;

	constructor(
		private readonly res: ServerResponse,
		private readonly maxBuffered = CLIENT_BUFFER_BYTES,
	) {
		this.allowance = maxBuffered;
		res.writeHead(200, {
			"content-type": "text/event-stream; charset=utf-8",
			"cache-control": "no-cache, no-transform",
			connection: "keep-alive",
			"x-accel-buffering": "no",
			[API_VERSION_HEADER]: API_VERSION,
		});
		// Tell EventSource how soon to come back after a drop.
		res.write("retry: 1000\n\n");
		res.on("close", () => {
			this.closed = true;
		});
		res.on("drain", () => {
			this.allowance = this.maxBuffered;
		});
	}

	get isClosed(): boolean {
		return this.closed;
	}

	write(frame: string): boolean {
		if (this.closed) return false;
		if (this.res.writableLength > this.allowance) {
			this.closed = true;
			this.res.destroy();
			return false;
		}
		// A frame larger than the bound (a big session's snapshot) may drain first; only what piles up behind it
		// counts against the client. Without this, a big snapshot on a slow link would cut the client off every
		// time, and every reconnect would send the snapshot again.
		// Only one such frame at a time: a second while the first waits counts like any other frame.
		if (frame.length > this.maxBuffered / 4 && this.res.writableLength <= this.maxBuffered) {
			const bytes = Buffer.byteLength(frame);
			if (bytes > this.maxBuffered) this.allowance = this.res.writableLength + bytes + this.maxBuffered;
		}
		this.res.write(frame);
		return true;
	}

	end(): void {
		if (this.closed) return;
		this.closed = true;
		this.res.end();
	}
}
