/** An SSE client on a Node response, with a bounded send buffer: a client that stops reading is dropped. */
import type { ServerResponse } from "node:http";
import type { EventSink } from "./channel.js";

/** Past this many unsent bytes the client is cut off; it reconnects with its cursor and catches up. */
export const CLIENT_BUFFER_BYTES = 1024 * 1024;

export class SseClient implements EventSink {
	private closed = false;

	constructor(
		private readonly res: ServerResponse,
		private readonly maxBuffered = CLIENT_BUFFER_BYTES,
	) {
		res.writeHead(200, {
			"content-type": "text/event-stream; charset=utf-8",
			"cache-control": "no-cache, no-transform",
			connection: "keep-alive",
			"x-accel-buffering": "no",
		});
		// Tell EventSource how soon to come back after a drop.
		res.write("retry: 1000\n\n");
		res.on("close", () => {
			this.closed = true;
		});
	}

	get isClosed(): boolean {
		return this.closed;
	}

	write(frame: string): boolean {
		if (this.closed) return false;
		if (this.res.writableLength > this.maxBuffered) {
			this.closed = true;
			this.res.destroy();
			return false;
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
