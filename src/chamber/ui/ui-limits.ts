/**
 * The bounds of one chamber session's extension UI, for all its extensions together, in-process ones
 * included (they call `ctx.ui` directly and have no protocol identity to budget; protocol extensions have
 * their own, smaller share on top: extensions/host/ui-budget.ts). What is shown is bounded by count (keys,
 * dialogs) and by size (descriptors.ts); what is published is bounded by rate, so neither the session's state
 * nor its event stream grows without end under a flood. The excess is refused with a `UiLimitError` the
 * caller sees (a protocol extension as the failure of its UI request).
 */
import { TokenBucket } from "../../extensions/host/token-bucket.js";

export const SESSION_UI_LIMITS = {
	/** PiChamber keeps at most 50 of each in a session's snapshot. */
	widgetKeys: 50,
	statusKeys: 50,
	/** Dialogs waiting for the user at once. */
	pendingDialogs: 16,
	/** PiChamber's editor text bound. */
	editorTextChars: 100_000,
	/**
	 * Every `ctx.ui` call that publishes (notify, status, widget, title, editor text, dialogs). The burst covers
	 * more than the replay window (1,024 events): an extension may legitimately fill it at once, but not forever.
	 */
	updatesPerSecond: 500,
	updateBurst: 2_000,
	notificationsPerSecond: 20,
	notificationBurst: 60,
	/** Characters published (widget lines, status, notification, title, editor text). */
	contentCharsPerSecond: 512 * 1024,
	contentCharBurst: 2 * 1024 * 1024,
	/**
	 * Transcript rows left by dialogs that ended unanswered: each is an entry in the session file, and a dialog
	 * with a 1 ms timeout costs an extension nothing, so past a burst of 32 the rows come at one a second (the
	 * dialogs themselves still end; the ones past the rate leave no row).
	 */
	dialogRowsPerSecond: 1,
	dialogRowBurst: 32,
} as const;

/** A UI call refused by a limit; its message names the limit and what to do. */
export class UiLimitError extends Error {
	override readonly name = "UiLimitError";
}

export class SessionUiLimits {
	private readonly updates = new TokenBucket(SESSION_UI_LIMITS.updatesPerSecond, SESSION_UI_LIMITS.updateBurst);
	private readonly notifications = new TokenBucket(
		SESSION_UI_LIMITS.notificationsPerSecond,
		SESSION_UI_LIMITS.notificationBurst,
	);
	private readonly content = new TokenBucket(
		SESSION_UI_LIMITS.contentCharsPerSecond,
		SESSION_UI_LIMITS.contentCharBurst,
	);

	private readonly dialogRows = new TokenBucket(
		SESSION_UI_LIMITS.dialogRowsPerSecond,
		SESSION_UI_LIMITS.dialogRowBurst,
	);

	/** Whether one more unanswered dialog may leave a transcript row now. */
	admitDialogRow(): boolean {
		return this.dialogRows.take();
	}

	/** Throws unless one more publishing call of `chars` characters fits the session's rates. */
	admit(what: "notify" | "update", chars: number): void {
		const l = SESSION_UI_LIMITS;
		if (!this.updates.take()) {
			throw new UiLimitError(
				`ctx.ui refused: this session's extensions exceeded ${l.updatesPerSecond} UI updates per second (burst ${l.updateBurst}); slow down`,
			);
		}
		if (what === "notify" && !this.notifications.take()) {
			throw new UiLimitError(
				`ctx.ui.notify refused: this session's extensions exceeded ${l.notificationsPerSecond} notifications per second (burst ${l.notificationBurst})`,
			);
		}
		if (chars > 0 && !this.content.take(Math.min(chars, l.contentCharBurst))) {
			throw new UiLimitError(
				`ctx.ui refused: this session's extensions exceeded ${l.contentCharsPerSecond} characters of UI content per second (burst ${l.contentCharBurst})`,
			);
		}
	}

	/** Throws if `key` would be one key too many in `held`. */
	static checkKey(kind: "widget" | "status", held: ReadonlyMap<string, unknown>, key: string): void {
		const limit = kind === "widget" ? SESSION_UI_LIMITS.widgetKeys : SESSION_UI_LIMITS.statusKeys;
		if (held.has(key) || held.size < limit) return;
		const call = kind === "widget" ? "setWidget" : "setStatus";
		throw new UiLimitError(
			`ctx.ui.${call}("${key}") refused: this session already holds ${limit} ${kind} keys (the limit per session); ` +
				`clear one first with ${call}(key, undefined)`,
		);
	}
}
