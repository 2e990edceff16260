/**
 * The chamber's HTTP API and event stream as `pier attach` uses them: a few typed calls and one SSE follower.
 * Shapes come from the chamber's wire (src/chamber/wire.ts); this module is the one place to point at a
 * generated client later. No pi or chamber code is loaded here: the terminal is only a client of the daemon.
 */
import type {
	ApiErrorBody,
	DialogAnswer,
	EventEnvelope,
	EventName,
	ModelView,
	SessionSummary,
	SessionView,
	TreeNodeView,
} from "../../chamber/wire.js";

/** How requests prove who they are: a browser session (cookie + key) or a device token. */
export type Credential = { kind: "browser"; cookie: string; key: string } | { kind: "bearer"; token: string };

export class ChamberError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
	) {
		super(message);
		this.name = "ChamberError";
	}
}

export class ChamberClient {
	constructor(
		readonly base: string,
		private credential: Credential,
	) {}

	headers(extra: Record<string, string> = {}): Record<string, string> {
		const auth: Record<string, string> =
			this.credential.kind === "bearer"
				? { authorization: `Bearer ${this.credential.token}` }
				: { cookie: this.credential.cookie, "x-pier-key": this.credential.key };
		return { ...auth, ...extra };
	}

	async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(new URL(path, this.base), {
			method,
			headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});
		const text = await response.text();
		let parsed: unknown;
		try {
			parsed = text ? JSON.parse(text) : undefined;
		} catch {
			parsed = undefined;
		}
		if (!response.ok) {
			const error = (parsed as ApiErrorBody | undefined)?.error;
			throw new ChamberError(
				response.status,
				error?.code ?? "http_error",
				error?.message ?? `${method} ${path} answered ${response.status}`,
			);
		}
		return parsed as T;
	}

	private session(id: string, rest = ""): string {
		return `/api/pi/sessions/${encodeURIComponent(id)}${rest}`;
	}

	async sessions(): Promise<SessionSummary[]> {
		return (await this.call<{ sessions: SessionSummary[] }>("GET", "/api/pi/sessions")).sessions;
	}
	view(id: string): Promise<SessionView> {
		return this.call("GET", this.session(id));
	}
	open(id: string): Promise<{ session: SessionSummary }> {
		return this.call("POST", this.session(id, "/open"), {});
	}
	/** A prompt, or one of the chamber's commands (`/model x`, `/tree id`, …), or `!cmd`, as the page sends them. */
	prompt(id: string, text: string): Promise<unknown> {
		return this.call("POST", this.session(id, "/prompt"), { text });
	}
	steer(id: string, text: string): Promise<unknown> {
		return this.call("POST", this.session(id, "/steer"), { text });
	}
	followUp(id: string, text: string): Promise<unknown> {
		return this.call("POST", this.session(id, "/follow-up"), { text });
	}
	abort(id: string): Promise<unknown> {
		return this.call("POST", this.session(id, "/abort"), {});
	}
	answer(id: string, requestId: string, answer: DialogAnswer): Promise<unknown> {
		return this.call("POST", this.session(id, `/dialogs/${encodeURIComponent(requestId)}`), answer);
	}
	async models(id: string): Promise<ModelView[]> {
		return (await this.call<{ models: ModelView[] }>("GET", `/api/pi/models?session=${encodeURIComponent(id)}`)).models;
	}
	setModel(id: string, model: string): Promise<unknown> {
		return this.call("PUT", this.session(id, "/model"), { model });
	}
	async tree(id: string): Promise<TreeNodeView[]> {
		return (await this.call<{ nodes: TreeNodeView[] }>("GET", this.session(id, "/tree"))).nodes;
	}
	navigate(id: string, entryId: string): Promise<unknown> {
		return this.call("POST", this.session(id, "/tree"), { entryId });
	}
	setEditor(id: string, text: string): Promise<unknown> {
		return this.call("PUT", this.session(id, "/editor"), { text });
	}
	/** Ends a browser credential (the one `pier attach` signed in with); a device token stays. */
	async signOut(): Promise<void> {
		if (this.credential.kind === "browser") await this.call("POST", "/api/auth/logout", {});
	}

	/** Follows a session's event stream until `signal` aborts; see `followEvents`. */
	follow(id: string, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
		return followEvents(this, `/api/pi/events?session=${encodeURIComponent(id)}`, handlers, signal);
	}
}

export interface StreamHandlers {
	event(envelope: EventEnvelope<EventName>): void;
	/** The stream broke and is being opened again (with the last sequence, so nothing is lost). */
	reconnecting?(reason: string): void;
	/** The daemon refused the credential (revoked, signed out): the stream stops. */
	refused(error: ChamberError): void;
}

/**
 * One SSE stream, reopened with `Last-Event-ID` whenever it breaks: the daemon replays what was missed, or sends
 * a fresh snapshot when the cursor is too old. A 401 or 403 ends it for good.
 */
export async function followEvents(
	client: ChamberClient,
	path: string,
	handlers: StreamHandlers,
	signal: AbortSignal,
): Promise<void> {
	let lastSeq: number | undefined;
	while (!signal.aborted) {
		try {
			const response = await fetch(new URL(path, client.base), {
				headers: client.headers({
					accept: "text/event-stream",
					...(lastSeq !== undefined ? { "last-event-id": String(lastSeq) } : {}),
				}),
				signal,
			});
			if (response.status === 401 || response.status === 403) {
				const body = (await response.json().catch(() => undefined)) as ApiErrorBody | undefined;
				handlers.refused(
					new ChamberError(response.status, body?.error.code ?? "unauthorized", body?.error.message ?? "refused"),
				);
				return;
			}
			if (!response.ok || !response.body) throw new Error(`the event stream answered ${response.status}`);
			const decoder = new TextDecoder();
			let buffer = "";
			for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
				buffer += decoder.decode(chunk, { stream: true });
				for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
					const block = buffer.slice(0, end);
					buffer = buffer.slice(end + 2);
					const data = block
						.split("\n")
						.filter((line) => line.startsWith("data: "))
						.map((line) => line.slice(6))
						.join("\n");
					if (!data) continue;
					const envelope = JSON.parse(data) as EventEnvelope<EventName>;
					if (envelope.event !== "heartbeat") lastSeq = envelope.seq;
					handlers.event(envelope);
				}
			}
			if (!signal.aborted) handlers.reconnecting?.("the stream ended");
		} catch (error) {
			if (signal.aborted) return;
			handlers.reconnecting?.((error as Error).message);
		}
		await new Promise<void>((done) => {
			const timer = setTimeout(done, 1_000);
			signal.addEventListener("abort", () => {
				clearTimeout(timer);
				done();
			});
		});
	}
}
