/**
 * Web Push for devices with no chamber page open. The service watches the daemon's own stream (session summaries,
 * `sessions.changed`), turns a run's end and a new question into notices (notice.ts), and sends each to every
 * subscribed device whose settings want it and which has no event stream open: a device with a page open is told
 * by that page (its service worker's showNotification), so nothing is shown twice.
 *
 * Messages are RFC 8291 (aes128gcm) with RFC 8292 VAPID, made by `web-push`; this module posts them itself
 * (fetch), so a push service may be `http:` on loopback, which is how tests stand in for a browser vendor's.
 */
import { join } from "node:path";
import webpush from "web-push";
import type { AuthStore } from "../auth/store.js";
import type { Chamber } from "../chamber.js";
import type { EventSink } from "../events/channel.js";
import type { EventPayloads } from "../wire.js";
import { type Notice, type NoticeDialog, type NoticeEvent, NoticeTracker, noticeOf } from "./notice.js";
import { type DeviceRecord, PushStore, type PushTarget } from "./store.js";
import { loadVapidKeys, VAPID_SUBJECT, type VapidKeys } from "./vapid.js";

/** How long a push service may hold a message for an offline device (seconds). */
const TTL_SECONDS = 60 * 60;
const SEND_TIMEOUT_MS = 10_000;

export interface PushServiceOptions {
	stateDir: string;
	auth: AuthStore;
	chamber: Chamber;
	/** Where failures are told (a push service refusing, an endpoint down); stderr by default. */
	log?: (line: string) => void;
}

export class PushService {
	readonly store: PushStore;
	private keys: VapidKeys | undefined;
	private readonly tracker = new NoticeTracker();
	/** Open event streams per credential: a device with a page open is told by the page. */
	private readonly pages = new Map<string, number>();
	private readonly detach: () => void;
	private readonly inFlight = new Set<Promise<void>>();
	private readonly log: (line: string) => void;

	constructor(private readonly options: PushServiceOptions) {
		this.store = new PushStore(join(options.stateDir, "push.json"));
		this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
		const sink: EventSink = { write: (frame) => this.frame(frame) };
		this.detach = options.chamber.events.attach(sink, options.chamber.events.latest);
	}

	/** The daemon's VAPID public key, made (and kept in `vapid.json`) on first use. */
	publicKey(): string {
		this.keys ??= loadVapidKeys(join(this.options.stateDir, "vapid.json"));
		return this.keys.publicKey;
	}

	/** Drops the records of credentials that were revoked or signed out. */
	prune(): void {
		const live = new Set(this.options.auth.listCredentials().map((c) => c.id));
		this.store.prune((id) => live.has(id));
	}

	/** A page's event stream opened for this credential; the answer closes it. */
	pageOpened(credential: string): () => void {
		this.pages.set(credential, (this.pages.get(credential) ?? 0) + 1);
		let open = true;
		return () => {
			if (!open) return;
			open = false;
			const left = (this.pages.get(credential) ?? 1) - 1;
			if (left > 0) this.pages.set(credential, left);
			else this.pages.delete(credential);
		};
	}

	hasPageOpen(credential: string): boolean {
		return (this.pages.get(credential) ?? 0) > 0;
	}

	/** Resolves once every push started so far was answered (tests; shutdown). */
	async settled(): Promise<void> {
		while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
	}

	async close(): Promise<void> {
		this.detach();
		await this.settled();
	}

	/** A daemon frame: only `sessions.changed` is read (parsed only then: the name is on its second line). */
	private frame(frame: string): boolean {
		if (!frame.includes("\nevent: sessions.changed\n")) return true;
		const data = /\ndata: (.*)\n/.exec(frame)?.[1];
		if (!data) return true;
		try {
			const payload = (JSON.parse(data) as { payload: EventPayloads["sessions.changed"] }).payload;
			this.changed(payload);
		} catch (error) {
			this.log(`pier chamber: push: ${(error as Error).message}`);
		}
		// The sink never asks to be dropped: it is the daemon's own listener, not a client.
		return true;
	}

	private changed(p: EventPayloads["sessions.changed"]): void {
		if (p.reason === "deleted" || !p.session) {
			if (p.reason === "deleted") this.tracker.forget(p.id);
			return;
		}
		const s = p.session;
		for (const event of this.tracker.observe(s)) {
			const dialog = event === "waiting" ? this.pendingDialog(s.id) : undefined;
			this.notify(event, noticeOf(event, s, dialog));
		}
	}

	/** The newest question of a session, for its notice (a confirm's Yes/No become the notification's buttons). */
	private pendingDialog(id: string): NoticeDialog | undefined {
		const dialog = this.options.chamber.liveSession(id)?.ui.view().dialogs.at(-1);
		return dialog ? { requestId: dialog.requestId, method: dialog.method, title: dialog.title } : undefined;
	}

	private notify(event: NoticeEvent, notice: Notice): void {
		const devices = this.store.subscribed();
		if (devices.length === 0) return;
		this.prune();
		for (const [credential, record] of this.store.subscribed()) {
			if (!record.settings[event] || this.hasPageOpen(credential)) continue;
			const sending = this.send(record, notice).finally(() => this.inFlight.delete(sending));
			this.inFlight.add(sending);
		}
	}

	private async send(record: DeviceRecord & { subscription: PushTarget }, notice: Notice): Promise<void> {
		const { endpoint, keys } = record.subscription;
		const origin = new URL(endpoint).origin;
		try {
			this.publicKey();
			const keysNow = this.keys as VapidKeys;
			const request = webpush.generateRequestDetails({ endpoint, keys }, JSON.stringify(notice), {
				vapidDetails: { subject: VAPID_SUBJECT, publicKey: keysNow.publicKey, privateKey: keysNow.privateKey },
				TTL: TTL_SECONDS,
				contentEncoding: "aes128gcm",
				urgency: "high",
			});
			const answer = await fetch(request.endpoint, {
				method: request.method,
				headers: fetchHeaders(request.headers),
				body: request.body ?? null,
				signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
			});
			await answer.body?.cancel();
			// RFC 8030 §7.3: the subscription is gone for good; the browser subscribes again when it can.
			if (answer.status === 404 || answer.status === 410) this.store.dropEndpoint(endpoint);
			else if (!answer.ok) this.log(`pier chamber: push to ${origin} refused: ${answer.status}`);
		} catch (error) {
			const cause = (error as Error).cause as Error | undefined;
			this.log(
				`pier chamber: push to ${origin} failed: ${(error as Error).message}${cause ? ` (${cause.message})` : ""}`,
			);
		}
	}
}

/**
 * web-push's headers for fetch: values as strings, and no Content-Length, which fetch sets from the body (the
 * daemon's undici dispatcher refuses one given by hand).
 */
export function fetchHeaders(headers: Record<string, unknown>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (name.toLowerCase() !== "content-length") out[name] = String(value);
	}
	return out;
}
