/**
 * The chamber's HTTP API and event stream as `pier attach` uses them: a thin layer over the published client
 * (`pier/client`, src/client/index.ts), so the terminal speaks the same typed contract as the web app and any
 * third-party client. Every call is a typed `request` of a route in the OpenAPI document; the stream is the
 * client's `events()`, reopened here with `since` whenever it breaks. No pi or chamber code is loaded here: the
 * terminal is only a client of the daemon.
 */
import {
	type AnyEvent,
	createClient,
	type ModelView,
	type PierClient,
	PierApiError,
	type SessionSummary,
	type SessionView,
} from "../../client/index.js";
import type { DialogAnswer, TreeNodeView } from "../../chamber/wire.js";

export { PierApiError };

/** How requests prove who they are: a browser session (cookie + key) or a device token. */
export type Credential = { kind: "browser"; cookie: string; key: string } | { kind: "bearer"; token: string };

/** A `pier/client` signed in with `credential`: a device token as Bearer, a browser session as its cookie + key. */
export function clientFor(base: string, credential: Credential): PierClient {
	return credential.kind === "bearer"
		? createClient({ baseUrl: base, token: credential.token })
		: createClient({ baseUrl: base, headers: () => ({ cookie: credential.cookie, "x-pier-key": credential.key }) });
}

export class ChamberClient {
	readonly api: PierClient;

	constructor(
		readonly base: string,
		private readonly credential: Credential,
	) {
		this.api = clientFor(base, credential);
	}

	async sessions(): Promise<SessionSummary[]> {
		return (await this.api.request("GET /api/pi/sessions")).sessions;
	}
	view(id: string): Promise<SessionView> {
		return this.api.request("GET /api/pi/sessions/:id", { params: { id } });
	}
	open(id: string): Promise<{ session: SessionSummary }> {
		return this.api.request("POST /api/pi/sessions/:id/open", { params: { id } });
	}
	/** A prompt, or one of the chamber's commands (`/model x`, `/tree id`, …), or `!cmd`, as the page sends them. */
	prompt(id: string, text: string): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/prompt", { params: { id }, body: { text } });
	}
	steer(id: string, text: string): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/steer", { params: { id }, body: { text } });
	}
	followUp(id: string, text: string): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/follow-up", { params: { id }, body: { text } });
	}
	abort(id: string): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/abort", { params: { id } });
	}
	answer(id: string, requestId: string, answer: DialogAnswer): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/dialogs/:requestId", {
			params: { id, requestId },
			body: answer,
		});
	}
	async models(id: string): Promise<ModelView[]> {
		return (await this.api.request("GET /api/pi/models", { query: { session: id } })).models;
	}
	setModel(id: string, model: string): Promise<unknown> {
		return this.api.request("PUT /api/pi/sessions/:id/model", { params: { id }, body: { model } });
	}
	async tree(id: string): Promise<TreeNodeView[]> {
		return (await this.api.request("GET /api/pi/sessions/:id/tree", { params: { id } })).nodes;
	}
	navigate(id: string, entryId: string): Promise<unknown> {
		return this.api.request("POST /api/pi/sessions/:id/tree", { params: { id }, body: { entryId } });
	}
	setEditor(id: string, text: string): Promise<unknown> {
		return this.api.request("PUT /api/pi/sessions/:id/editor", { params: { id }, body: { text } });
	}
	/** Ends a browser credential (the one `pier attach` signed in with); a device token stays. */
	async signOut(): Promise<void> {
		if (this.credential.kind === "browser") await this.api.request("POST /api/auth/logout", { body: {} });
	}

	/** Follows a session's event stream until `signal` aborts; see `followEvents`. */
	follow(id: string, handlers: StreamHandlers, signal: AbortSignal): Promise<void> {
		return followEvents(this.api, id, handlers, signal);
	}
}

export interface StreamHandlers {
	event(envelope: AnyEvent): void;
	/** The stream broke and is being opened again (with the last sequence, so nothing is lost). */
	reconnecting?(reason: string): void;
	/** The daemon refused the credential (revoked, signed out): the stream stops. */
	refused(error: PierApiError): void;
}

/**
 * One session's stream through `events()`, reopened with `since` (the daemon reads it as `Last-Event-ID`) whenever
 * it breaks: the daemon replays what was missed, or sends a fresh snapshot when the cursor is too old. A 401 or
 * 403 ends it for good.
 */
export async function followEvents(
	api: PierClient,
	session: string,
	handlers: StreamHandlers,
	signal: AbortSignal,
): Promise<void> {
	let since: number | undefined;
	while (!signal.aborted) {
		try {
			const stream = api.events({ session, signal, ...(since !== undefined ? { since } : {}) });
			await stream.opened;
			for await (const envelope of stream) {
				if (envelope.event !== "heartbeat") since = envelope.seq;
				handlers.event(envelope);
			}
			if (!signal.aborted) handlers.reconnecting?.("the stream ended");
		} catch (error) {
			if (signal.aborted) return;
			if (error instanceof PierApiError && (error.status === 401 || error.status === 403)) {
				handlers.refused(error);
				return;
			}
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
