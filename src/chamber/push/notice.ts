/**
 * What a notification says, decided once for both senders: the daemon's Web Push (push/service.ts, for devices
 * with no page open) and the page's own service worker call (web/src/notify.ts, for a hidden page). Pure: the
 * web app imports it too. A notice comes from watching session summaries (`sessions.changed`): a run's end is
 * `streaming` going from true to false, a question is the count of pending dialogs (`waiting`) going up.
 */
import type { DialogMethod, SessionSummary } from "../wire.js";

export type NoticeEvent = "finished" | "waiting";

/** Which events notify a device; each device keeps its own (both on until it says otherwise). */
export interface NoticeSettings {
	finished: boolean;
	waiting: boolean;
}

/** `GET /api/push/settings` and every change's answer: this device's record. */
export interface PushDeviceView {
	settings: NoticeSettings;
	/** Whether this device has a push subscription (notifications while no page is open). */
	subscribed: boolean;
	/** The push service's origin (never the whole endpoint, which is a capability URL). */
	pushService?: string;
}

export const DEFAULT_NOTICE_SETTINGS: NoticeSettings = { finished: true, waiting: true };

/** The dialog a "waiting" notice is about: a confirm can be answered from the notification's buttons. */
export interface NoticeDialog {
	requestId: string;
	method: DialogMethod;
	title: string;
}

/** A Web Push message's payload, and what the service worker shows (`showNotification(title, {body, tag, data})`). */
export interface Notice {
	v: 1;
	event: NoticeEvent;
	sessionId: string;
	/** The session's name as the list shows it, control and bidi characters escaped. */
	session: string;
	title: string;
	body: string;
	/** One notification per session and event: a newer one replaces it, the page's and the push's alike. */
	tag: string;
	dialog?: NoticeDialog;
}

const NAME_CHARS = 60;
const TEXT_CHARS = 160;

// Control characters and bidi controls, as the page's visible.ts escapes them: a notification is drawn by the
// system, outside the page, and a session name from a file must not reorder or hide what it says.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

function shown(text: string, max: number): string {
	const escaped = text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
	return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}

/** The session as the list names it: its name, else its first message, else its id's start. */
export function sessionLabel(s: Pick<SessionSummary, "id" | "name" | "firstMessage">): string {
	const label = s.name?.trim() || s.firstMessage?.trim() || `session ${s.id.slice(0, 8)}`;
	return shown(label, NAME_CHARS);
}

export function noticeOf(
	event: NoticeEvent,
	s: Pick<SessionSummary, "id" | "name" | "firstMessage">,
	dialog?: NoticeDialog,
): Notice {
	const session = sessionLabel(s);
	const body =
		event === "finished"
			? `${session}: the run finished.`
			: dialog
				? `${session} is waiting on you: ${shown(dialog.title, TEXT_CHARS)}`
				: `${session} is waiting on you.`;
	return {
		v: 1,
		event,
		sessionId: s.id,
		session,
		title: event === "finished" ? "Run finished" : "Waiting on you",
		body,
		tag: `${s.id}:${event}`,
		...(dialog ? { dialog: { ...dialog, title: shown(dialog.title, TEXT_CHARS) } } : {}),
	};
}

type Seen = { streaming: boolean; waiting: number };

/**
 * Turns the stream of session summaries into events: each summary is compared with the last one seen for that
 * session. A session seen for the first time counts as idle with nothing pending, so a question already open when
 * it is first seen still notifies, and a run already going notifies when it ends.
 */
export class NoticeTracker {
	private readonly seen = new Map<string, Seen>();

	observe(s: Pick<SessionSummary, "id" | "streaming" | "waiting">): NoticeEvent[] {
		const before = this.seen.get(s.id) ?? { streaming: false, waiting: 0 };
		const now = { streaming: s.streaming, waiting: s.waiting ?? 0 };
		this.seen.set(s.id, now);
		const events: NoticeEvent[] = [];
		if (before.streaming && !now.streaming) events.push("finished");
		if (now.waiting > before.waiting) events.push("waiting");
		return events;
	}

	forget(id: string): void {
		this.seen.delete(id);
	}
}
