/**
 * A server-sent-events reader over fetch. EventSource cannot send headers, and the chamber wants the browser
 * key (`X-Pier-Key`) on the stream too: putting it in the URL would leave it in logs and history. This keeps
 * EventSource's surface that stream.ts uses (readyState, onopen, onerror, named listeners, close) but never
 * reconnects by itself: any end of the stream is CLOSED, and stream.ts decides when to try again.
 */

export const CONNECTING = 0;
export const OPEN = 1;
export const CLOSED = 2;

/** What stream.ts needs of an event source; EventSource fits it as well. */
export interface StreamSource {
	readonly readyState: number;
	onopen: ((this: never, ev: Event) => unknown) | null;
	onerror: ((this: never, ev: Event) => unknown) | null;
	addEventListener(name: string, listener: (e: MessageEvent<string>) => void): void;
	close(): void;
}

export interface FetchSourceOptions {
	headers?: Record<string, string>;
	/** Runs first (e.g. the POST that opens a session); a rejection ends the source like a failed fetch. */
	before?: () => Promise<unknown>;
}

export class FetchEventSource implements StreamSource {
	readyState = CONNECTING;
	onopen: ((this: never, ev: Event) => unknown) | null = null;
	onerror: ((this: never, ev: Event) => unknown) | null = null;
	/** The HTTP status of the answer, once there is one (0 for a network failure). */
	status: number | undefined;
	private readonly listeners = new Map<string, ((e: MessageEvent<string>) => void)[]>();
	private readonly abort = new AbortController();

	constructor(
		readonly url: string,
		private readonly options: FetchSourceOptions = {},
	) {
		void this.run();
	}

	addEventListener(name: string, listener: (e: MessageEvent<string>) => void): void {
		this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
	}

	close(): void {
		this.readyState = CLOSED;
		this.abort.abort();
	}

	private async run(): Promise<void> {
		try {
			await this.options.before?.();
			if (this.readyState === CLOSED) return;
			const res = await fetch(this.url, {
				headers: { Accept: "text/event-stream", ...this.options.headers },
				credentials: "same-origin",
				cache: "no-store",
				signal: this.abort.signal,
			});
			this.status = res.status;
			const type = res.headers.get("content-type") ?? "";
			if (!res.ok || !res.body || !type.startsWith("text/event-stream")) {
				void res.body?.cancel().catch(() => {});
				return this.fail();
			}
			this.readyState = OPEN;
			this.onopen?.call(undefined as never, new Event("open"));
			await this.read(res.body);
		} catch {
			// A network failure or our own abort: either way the stream is over.
		}
		this.fail();
	}

	private async read(body: ReadableStream<Uint8Array>): Promise<void> {
		const reader = body.getReader();
		const decoder = new TextDecoder();
		let buffer = "";
		let event = "";
		let data: string[] = [];
		let id = "";
		for (;;) {
			const { done, value } = await reader.read();
			if (done || this.readyState === CLOSED) return;
			buffer += decoder.decode(value, { stream: true });
			// Lines end in CRLF, LF or CR (the SSE grammar); a lone CR at the end may be half of a CRLF.
			const lines = buffer.split(/\r\n|\n|\r(?!$)/);
			buffer = lines.pop() ?? "";
			for (const line of lines) {
				if (line === "") {
					if (data.length > 0) this.dispatch(event || "message", data.join("\n"), id);
					event = "";
					data = [];
					continue;
				}
				if (line.startsWith(":")) continue;
				const colon = line.indexOf(":");
				const field = colon < 0 ? line : line.slice(0, colon);
				let value = colon < 0 ? "" : line.slice(colon + 1);
				if (value.startsWith(" ")) value = value.slice(1);
				if (field === "event") event = value;
				else if (field === "data") data.push(value);
				else if (field === "id") id = value;
			}
		}
	}

	private dispatch(name: string, data: string, lastEventId: string): void {
		const listeners = this.listeners.get(name);
		if (!listeners || this.readyState === CLOSED) return;
		const e = new MessageEvent<string>(name, { data, lastEventId });
		for (const listener of listeners) listener(e);
	}

	private fail(): void {
		if (this.readyState === CLOSED) return;
		this.readyState = CLOSED;
		this.onerror?.call(undefined as never, new Event("error"));
	}
}
