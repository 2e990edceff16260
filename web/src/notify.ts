/**
 * The page's half of notifications and of the installable app: it registers the service worker (/sw.js), and
 * while this page is hidden it turns the daemon's session summaries into notices (the same rules as the daemon's
 * Web Push, src/chamber/push/notice.ts) and asks its service worker to show them. While a page is open the daemon
 * sends this device no Web Push (it sees the page's event stream), so each notice is shown once.
 */
import { noticeOf, NoticeTracker, type NoticeDialog } from "../../src/chamber/push/notice.js";
import { api, authHeaders } from "./api.js";
import { requestOpenSession } from "./habit-events.js";
import { EventStream } from "./stream.js";
import type { Notice, NoticeSettings, SessionSummary } from "./types.js";

export const WORKER_URL = "/sw.js";
const PUSH_TIMEOUT_MS = 10_000;

/** Registers the worker once the page has loaded (its shell caching never competes with the page's own start). */
export function registerServiceWorker(): void {
	if (!("serviceWorker" in navigator)) return;
	const register = () => {
		navigator.serviceWorker.register(WORKER_URL, { scope: "/" }).catch(() => {
			// No worker (a browser that refuses it, an insecure origin): the page works, without offline start.
		});
	};
	if (document.readyState === "complete") register();
	else window.addEventListener("load", register, { once: true });
	// A notification clicked while this page is open: show its session here.
	navigator.serviceWorker.addEventListener("message", (event: MessageEvent) => {
		const data = event.data as { type?: string; sessionId?: unknown } | undefined;
		if (data?.type === "pier.open-session" && typeof data.sessionId === "string") requestOpenSession(data.sessionId);
	});
}

export function notificationsSupported(): boolean {
	return "Notification" in window && "serviceWorker" in navigator;
}

export function permission(): NotificationPermission | "unsupported" {
	return notificationsSupported() ? Notification.permission : "unsupported";
}

/** Asks the service worker to show a notice (it builds the notification, buttons included, for push and page alike). */
export async function showNotice(notice: Notice): Promise<void> {
	const registration = await navigator.serviceWorker.ready;
	registration.active?.postMessage({ type: "pier.notify", notice });
}

/** The newest question of a session, for a "waiting" notice: a confirm gets Yes/No buttons. */
async function pendingDialog(id: string): Promise<NoticeDialog | undefined> {
	try {
		const view = await api.getSession(id, 1);
		const d = view.ui.dialogs.at(-1);
		return d ? { requestId: d.requestId, method: d.method, title: d.title } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Follows the daemon stream while notifications are on for this device, and shows a notice for each run that
 * ends and each question that opens while the page is hidden. Answers a stop function.
 */
export function watchSessions(settings: () => NoticeSettings): () => void {
	const tracker = new NoticeTracker();
	const seen = (s: SessionSummary) => tracker.observe(s);
	const stream = new EventStream({
		dedupe: false,
		onEvent: (env) => {
			if (env.event !== "sessions.changed") return;
			const p = env.payload;
			if (p.reason === "deleted") tracker.forget(p.id);
			if (!p.session) return;
			const s = p.session;
			for (const event of seen(s)) {
				if (document.visibilityState !== "hidden" || !settings()[event]) continue;
				void (async () => {
					const dialog = event === "waiting" ? await pendingDialog(s.id) : undefined;
					await showNotice(noticeOf(event, s, dialog));
				})();
			}
		},
		onStatus: () => {},
		// The app's own streams notice a sign-in that ended; this one just stops trying.
		onUnauthorized: () => stream.close(),
	});
	stream.start();
	return () => stream.close();
}

// ---- the browser key, for the worker ------------------------------------------------------------------------

/**
 * The worker answers a confirm from the notification with the daemon's dialog route, which wants this browser's
 * key next to its cookie. The key lives in localStorage, which a worker cannot read; it is copied to IndexedDB,
 * the same origin's storage, while notifications are on, and removed when this page signs out.
 */
export async function shareKeyWithWorker(share: boolean): Promise<void> {
	const key = share ? authHeaders()["X-Pier-Key"] : undefined;
	await new Promise<void>((done) => {
		const open = indexedDB.open("pier", 1);
		open.onupgradeneeded = () => open.result.createObjectStore("worker");
		open.onerror = () => done();
		open.onsuccess = () => {
			const tx = open.result.transaction("worker", "readwrite");
			const store = tx.objectStore("worker");
			if (key) store.put(key, "browserKey");
			else store.delete("browserKey");
			tx.oncomplete = () => done();
			tx.onerror = () => done();
		};
	});
}

// ---- Web Push: notifications while no page is open ----------------------------------------------------------

/**
 * Subscribes this browser with its push service and gives the daemon the subscription. Answers why it could not
 * (no push service in this browser, or it refused): the page's own notifications go on either way.
 */
export async function subscribePush(): Promise<string | undefined> {
	try {
		const registration = await navigator.serviceWorker.ready;
		if (!("pushManager" in registration)) return "this browser has no Web Push";
		const { publicKey } = await api.pushKey();
		const existing = await registration.pushManager.getSubscription();
		const subscription =
			existing ??
			(await Promise.race([
				registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64urlBytes(publicKey) }),
				// A browser whose push service cannot be reached may never answer.
				new Promise<never>((_, fail) =>
					setTimeout(() => fail(new Error("its push service did not answer")), PUSH_TIMEOUT_MS),
				),
			]));
		await api.pushSubscribe(subscription.toJSON());
		return undefined;
	} catch (error) {
		return error instanceof Error ? error.message : String(error);
	}
}

export async function unsubscribePush(): Promise<void> {
	const registration = await navigator.serviceWorker.getRegistration();
	await (await registration?.pushManager.getSubscription())?.unsubscribe();
	await api.pushUnsubscribe();
}

function base64urlBytes(text: string): Uint8Array<ArrayBuffer> {
	const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
	const bytes = new Uint8Array(new ArrayBuffer(binary.length));
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	return bytes;
}
