/**
 * What one protocol extension (process, QuickJS, native) may ask of the session's UI: a rate of requests
 * and of notifications, a rate of UI content, and a number of widget and status keys held at once. The
 * session's UI has its own, larger bounds for all its extensions together (chamber/ui/ui-limits.ts); these
 * keep one extension from taking all of them. A refused request is answered at once with
 * `ui_request_failed` and a message naming the limit; nothing waits in a queue.
 */
import type { UiRequest } from "../protocol/frames.js";
import { type Clock, TokenBucket } from "./token-bucket.js";

export const EXTENSION_UI_LIMITS = {
	/** Every UI request (dialogs, notifications, status, widgets, title, editor, themes…). */
	requestsPerSecond: 100,
	requestBurst: 200,
	notificationsPerSecond: 10,
	notificationBurst: 30,
	/** Characters of widget lines, status, notification, title and editor text, as the chamber keeps them. */
	contentCharsPerSecond: 256 * 1024,
	contentCharBurst: 1024 * 1024,
	/** Distinct keys set at once; the session holds at most 50 of each for all its extensions. */
	widgetKeys: 32,
	statusKeys: 32,
} as const;

/** The chamber's key length (descriptors.ts LIMITS.keyChars). */
const KEY_CHARS = 128;

const passThrough = <T>(answer: Promise<T>): Promise<T> => answer;

/** A widget's or status's content as the chamber cuts it (descriptors.ts): what it costs to show. */
function contentChars(request: UiRequest): number {
	switch (request.type) {
		case "widget":
			return (request.lines ?? []).slice(0, 100).reduce((sum, line) => sum + Math.min(line.length, 2000), 0);
		case "status":
			return Math.min(request.text?.length ?? 0, 1000);
		case "notify":
			return Math.min(request.message.length, 50_000);
		case "title":
			return Math.min(request.title.length, 256);
		case "set_editor_text":
		case "paste_to_editor":
			return Math.min(request.text.length, 100_000);
		default:
			return 0;
	}
}

export class UiBudget {
	private readonly requests: TokenBucket;
	private readonly notifications: TokenBucket;
	private readonly content: TokenBucket;
	private readonly widgets = new Set<string>();
	private readonly statuses = new Set<string>();

	constructor(
		readonly extensionId: string,
		clock?: Clock,
	) {
		const l = EXTENSION_UI_LIMITS;
		this.requests = new TokenBucket(l.requestsPerSecond, l.requestBurst, clock);
		this.notifications = new TokenBucket(l.notificationsPerSecond, l.notificationBurst, clock);
		this.content = new TokenBucket(l.contentCharsPerSecond, l.contentCharBurst, clock);
	}

	/**
	 * Why the request is refused, or how to pass the session's answer through: a key this request added is
	 * forgotten again if the session refuses it (its own, larger bounds may).
	 */
	admit(request: UiRequest): string | (<T>(answer: Promise<T>) => Promise<T>) {
		const l = EXTENSION_UI_LIMITS;
		const who = `extension ${this.extensionId}`;
		const keyed = this.keyed(request);
		const adds = keyed?.setting === true && !keyed.keys.has(keyed.key);
		if (adds && keyed.keys.size >= keyed.limit) {
			return (
				`${request.type} "${keyed.key}" refused: ${who} already holds ${keyed.limit} ${request.type} keys ` +
				"(the limit per extension); clear one first (set it to undefined)"
			);
		}
		if (!this.requests.take()) {
			return `UI request refused: ${who} exceeded ${l.requestsPerSecond} UI requests per second (burst ${l.requestBurst}); slow down`;
		}
		if (request.type === "notify" && !this.notifications.take()) {
			return `notification refused: ${who} exceeded ${l.notificationsPerSecond} notifications per second (burst ${l.notificationBurst})`;
		}
		const chars = contentChars(request);
		if (chars > 0 && !this.content.take(chars)) {
			return `UI request refused: ${who} exceeded ${l.contentCharsPerSecond} characters of UI content per second (burst ${l.contentCharBurst})`;
		}
		if (keyed && !keyed.setting) keyed.keys.delete(keyed.key);
		if (!adds) return passThrough;
		keyed.keys.add(keyed.key);
		return async <T>(answer: Promise<T>): Promise<T> => {
			try {
				return await answer;
			} catch (error) {
				keyed.keys.delete(keyed.key);
				throw error;
			}
		};
	}

	/**
	 * Whether a partial update of one of the extension's tools, of `chars` characters shown, may be shown now: one
	 * UI request and its characters. The last one before a result (`final`) always passes and is charged anyway.
	 */
	admitToolUpdate(chars: number, final: boolean): boolean {
		if (final) {
			this.requests.spend(1);
			this.content.spend(chars);
			return true;
		}
		return this.requests.take() && (chars === 0 || this.content.take(chars));
	}

	/** The key a widget or status request sets or clears, cut as the chamber cuts it. */
	private keyed(request: UiRequest): { keys: Set<string>; key: string; setting: boolean; limit: number } | undefined {
		const l = EXTENSION_UI_LIMITS;
		if (request.type === "widget") {
			const key = request.key.slice(0, KEY_CHARS);
			return { keys: this.widgets, key, setting: request.lines !== undefined, limit: l.widgetKeys };
		}
		if (request.type === "status") {
			const key = request.key.slice(0, KEY_CHARS);
			return { keys: this.statuses, key, setting: request.text !== undefined, limit: l.statusKeys };
		}
		return undefined;
	}
}
