/**
 * One session's extension UI as server-side state: what `ctx.ui` calls and `pichamber.*` entries leave
 * behind (statuses, widgets, live panels, app surfaces, pending dialogs, title, editor text). Every change is
 * published as an `extension.*` event and folded into the state that snapshots and hydration serve, so a
 * client that joins late sees the same screen as one that watched it happen.
 */
import type { ExtensionUIContext, ExtensionUIDialogOptions, Theme } from "@earendil-works/pi-coding-agent";
import type { OverlaySurface } from "../../extensions/bridge/overlays.js";
import type {
	DialogAnswer,
	DialogRequest,
	DismissReason,
	EventName,
	EventPayloads,
	UiState,
	WidgetPlacement,
} from "../wire.js";
import { type AppSurface, type ComponentCard, LIMITS, type NormalizedCard } from "./descriptors.js";
import { capStatus, capWidgetLines, unwrapDescriptor } from "./text.js";
import { cardRemoval, normalizeCard } from "./cards.js";
import { normalizeApp } from "./apps.js";
import { normalizeFormFields } from "./forms.js";
import { checkAnswer } from "./dialog-answer.js";
import { SESSION_UI_LIMITS, SessionUiLimits, UiLimitError } from "./ui-limits.js";
import { ownerOf } from "./app-owner.js";
import { ChamberOverlay } from "./overlays.js";
import { CustomComponents, type CustomOutcome } from "./custom-components.js";
import type { CustomInput } from "./custom-wire.js";
import { Unavailable } from "./unavailable.js";

export type Publish = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

/** The answer to a dialog post: accepted, or refused with the HTTP status and code to report. */
export type AnswerOutcome = { ok: true } | { ok: false; status: 404 | 422; code: string; message: string };

interface PendingDialog {
	request: DialogRequest;
	settle(answer: DialogAnswer | undefined, reason: DismissReason): void;
}

/** How a dialog ended, for the session that shows it. */
export interface DialogEnd {
	request: DialogRequest;
	reason: DismissReason;
	/** Ended unanswered (timeout, cancel, abort) and within the rate of rows such dialogs may leave. */
	leaveRow: boolean;
}

/** Who calls `ctx.ui` (for error rows and notices that name the extension), and where error rows go. */
export interface UiCallers {
	caller(): string | undefined;
	reportError(message: string, source?: string): void;
}

/** `ctx.ui` as the chamber offers it: pi's interface plus PiChamber's `form`. */
export interface ChamberUiContext extends ExtensionUIContext {
	overlay: OverlaySurface;
	form(title: string, fields: unknown, opts?: ExtensionUIDialogOptions): Promise<Record<string, string> | undefined>;
}

/** Styling is the browser's business: theme calls hand text back unchanged. */
const plainTheme = new Proxy(
	{},
	{ get: (_target, name) => (name === "then" ? undefined : (...args: unknown[]) => args[args.length - 1]) },
) as unknown as Theme;

let dialogCounter = 0;

export class SessionUi {
	private readonly statuses = new Map<string, string>();
	private readonly widgets = new Map<string, { lines: string[]; placement: WidgetPlacement }>();
	private readonly panels = new Map<string, NormalizedCard>();
	private readonly apps = new Map<string, AppSurface>();
	private readonly appOwners = new Map<string, string>();
	private readonly panelOwners = new Map<string, string>();
	private readonly dialogs = new Map<string, PendingDialog>();
	private title: string | undefined;
	private editorText = "";
	private readonly limits = new SessionUiLimits();
	/** The open protocol overlay (bridge/overlays.ts finds its surface as `ctx.ui.overlay`). */
	readonly overlay: ChamberOverlay;
	/** `ctx.ui.custom` components on screen (custom-components.ts). */
	readonly customs: CustomComponents;
	private readonly unavailable: Unavailable;

	/**
	 * `onDialogs` hears every dialog that opens or ends (with how it ended), so the owner can keep the session
	 * list's "waiting" mark current; `leaveRow` says whether a dialog nobody answered should leave a transcript
	 * row (unanswered, and within the session's rate for such rows).
	 */
	constructor(
		private readonly publish: Publish,
		private readonly onDialogs: (ended?: DialogEnd) => void = () => {},
		callers: UiCallers = { caller: () => undefined, reportError: () => {} },
	) {
		this.overlay = new ChamberOverlay(publish);
		this.customs = new CustomComponents({
			publish: (event, payload) => publish(event, payload as never),
			caller: callers.caller,
			reportError: callers.reportError,
			changed: () => this.onDialogs(),
		});
		this.unavailable = new Unavailable((message) => this.context().notify(message, "warning"), callers.caller);
	}

	/** Dialogs and custom components waiting for the user. */
	get hasPendingDialogs(): boolean {
		return this.pendingDialogCount > 0;
	}

	get pendingDialogCount(): number {
		return this.dialogs.size + this.customs.count;
	}

	view(): UiState {
		return {
			statuses: Object.fromEntries(this.statuses),
			widgets: Object.fromEntries(this.widgets),
			panels: [...this.panels.values()],
			apps: [...this.apps.values()],
			dialogs: [...this.dialogs.values()].map((d) => d.request),
			...(this.overlay.view ? { overlay: this.overlay.view } : {}),
			...(this.customs.count > 0 ? { customs: this.customs.views() } : {}),
			...(this.title !== undefined ? { title: this.title } : {}),
			...(this.editorText ? { editorText: this.editorText } : {}),
		};
	}

	// ---- entries: the durable half of extension UI ---------------------------------------------

	/**
	 * Folds a `pichamber.ui` / `pichamber.app` custom entry into the live dock. Returns a problem to report
	 * (a refused app) or undefined. Custom *messages* never come here: they stay transcript cards.
	 */
	applyEntry(customType: string, data: unknown, live: boolean): string | undefined {
		if (customType === "pichamber.ui") return this.applyPanel(unwrapDescriptor(data), live, ownerOf(data));
		if (customType === "pichamber.app") return this.applyApp(unwrapDescriptor(data), live, ownerOf(data));
		return undefined;
	}

	/** The opaque key of the extension that mounted an app (app-owner.ts), if known. */
	appOwner(appId: string): string | undefined {
		return this.appOwners.get(appId);
	}

	/** A live panel's card and the opaque key of the extension that appended its latest version, if known. */
	panel(id: string): { card: ComponentCard; owner: string | undefined } | undefined {
		const card = this.panels.get(id);
		return card?.kind === "card" ? { card, owner: this.panelOwners.get(id) } : undefined;
	}

	private applyPanel(descriptor: unknown, live: boolean, owner: string | undefined): string | undefined {
		const removal = cardRemoval(descriptor);
		if (removal) {
			this.panelOwners.delete(removal.id);
			if (this.panels.delete(removal.id) && live) this.publish("extension.ui", { id: removal.id, removed: true });
			return undefined;
		}
		const card = normalizeCard(descriptor);
		if (!card?.id) return undefined;
		if (!this.panels.has(card.id) && this.panels.size >= LIMITS.panelsPerSession) {
			return `live panel "${card.id}" refused: a session holds at most ${LIMITS.panelsPerSession} panels`;
		}
		this.panels.set(card.id, card);
		if (owner) this.panelOwners.set(card.id, owner);
		else this.panelOwners.delete(card.id);
		if (live) this.publish("extension.ui", { id: card.id, card });
		return undefined;
	}

	private applyApp(descriptor: unknown, live: boolean, owner: string | undefined): string | undefined {
		const outcome = normalizeApp(descriptor);
		if ("error" in outcome) return `app surface refused: ${outcome.error}`;
		if ("removed" in outcome) {
			this.appOwners.delete(outcome.removed);
			if (this.apps.delete(outcome.removed) && live)
				this.publish("extension.app", { appId: outcome.removed, removed: true });
			return undefined;
		}
		const { app } = outcome;
		if (!this.apps.has(app.appId) && this.apps.size >= LIMITS.appsPerSession) {
			return `app surface "${app.appId}" refused: a session holds at most ${LIMITS.appsPerSession} apps`;
		}
		this.apps.set(app.appId, app);
		if (owner) this.appOwners.set(app.appId, owner);
		else this.appOwners.delete(app.appId);
		if (live) this.publish("extension.app", { appId: app.appId, app });
		return undefined;
	}

	/** Forgets panels and apps (another pi session's entries are about to be folded in), telling clients. */
	resetEntries(): void {
		for (const id of this.panels.keys()) this.publish("extension.ui", { id, removed: true });
		for (const appId of this.apps.keys()) this.publish("extension.app", { appId, removed: true });
		this.panels.clear();
		this.panelOwners.clear();
		this.apps.clear();
		this.appOwners.clear();
	}

	// ---- the browser's side ----------------------------------------------------------------------

	/** The chamber puts text in the composer (a fork's or a tree jump's message, as pi's editor gets it). */
	replaceEditorText(text: string): void {
		this.editorText = text.slice(0, SESSION_UI_LIMITS.editorTextChars);
		this.publish("extension.editor", { text: this.editorText });
	}

	setDraft(text: string): void {
		this.editorText = text;
	}

	answer(requestId: string, answer: DialogAnswer): AnswerOutcome {
		const pending = this.dialogs.get(requestId);
		if (!pending) return { ok: false, status: 404, code: "not_found", message: `no pending dialog ${requestId}` };
		if ("cancelled" in answer) {
			pending.settle(undefined, "cancelled");
			return { ok: true };
		}
		const problem = checkAnswer(pending.request, answer);
		if (problem) return { ok: false, status: 422, code: "invalid_answer", message: problem };
		pending.settle(answer, "answered");
		return { ok: true };
	}

	/** Ends every pending dialog (the session is closing); extensions see a cancellation. */
	dismissAll(reason: DismissReason): void {
		for (const pending of [...this.dialogs.values()]) pending.settle(undefined, reason);
		this.customs.dismissAll();
		this.overlay.end();
	}

	customInput(customId: string, input: CustomInput): CustomOutcome {
		return this.customs.input(customId, input);
	}

	cancelCustom(customId: string): CustomOutcome {
		return this.customs.cancel(customId);
	}

	// ---- ctx.ui ----------------------------------------------------------------------------------

	private dialog<T>(
		fields: Omit<DialogRequest, "requestId" | "timeoutMs" | "expiresAt">,
		opts: ExtensionUIDialogOptions | undefined,
		parse: (answer: DialogAnswer | undefined) => T,
	): Promise<T> {
		if (opts?.signal?.aborted) return Promise.resolve(parse(undefined));
		if (this.dialogs.size >= SESSION_UI_LIMITS.pendingDialogs) {
			return Promise.reject(
				new UiLimitError(
					`ctx.ui.${fields.method} refused: ${SESSION_UI_LIMITS.pendingDialogs} dialogs already wait for the user in this session`,
				),
			);
		}
		try {
			this.limits.admit("update", 0);
		} catch (error) {
			return Promise.reject(error);
		}
		const requestId = `dlg_${Date.now().toString(36)}_${(++dialogCounter).toString(36)}`;
		const timeout = opts?.timeout && opts.timeout > 0 ? opts.timeout : undefined;
		const request: DialogRequest = {
			requestId,
			...fields,
			...(timeout ? { timeoutMs: timeout, expiresAt: Date.now() + timeout } : {}),
		};
		return new Promise<T>((resolve) => {
			const timer = timeout ? setTimeout(() => settle(undefined, "timeout"), timeout) : undefined;
			const onAbort = () => settle(undefined, "aborted");
			const settle = (answer: DialogAnswer | undefined, reason: DismissReason) => {
				if (this.dialogs.get(requestId)?.settle !== settle) return;
				this.dialogs.delete(requestId);
				if (timer) clearTimeout(timer);
				opts?.signal?.removeEventListener("abort", onAbort);
				this.publish("extension.dialog.dismiss", { requestId, reason });
				const unanswered = reason === "timeout" || reason === "cancelled" || reason === "aborted";
				this.onDialogs({ request, reason, leaveRow: unanswered && this.limits.admitDialogRow() });
				resolve(parse(answer));
			};
			opts?.signal?.addEventListener("abort", onAbort, { once: true });
			this.dialogs.set(requestId, { request, settle });
			this.publish("extension.dialog", request);
			this.onDialogs();
		});
	}

	context(): ChamberUiContext {
		const answerValue = (a: DialogAnswer | undefined) => (a && "value" in a ? a.value : undefined);
		const setEditorText = (text: string) => {
			const capped = text.slice(0, SESSION_UI_LIMITS.editorTextChars);
			this.limits.admit("update", capped.length);
			this.editorText = capped;
			this.publish("extension.editor", { text: capped });
		};
		return {
			select: (title, options, opts) =>
				this.dialog({ method: "select", title, options: options.map(String) }, opts, answerValue),
			confirm: (title, message, opts) =>
				this.dialog({ method: "confirm", title, message }, opts, (a) => (a && "confirmed" in a ? a.confirmed : false)),
			input: (title, placeholder, opts) =>
				this.dialog(
					{ method: "input", title, ...(placeholder !== undefined ? { placeholder } : {}) },
					opts,
					answerValue,
				),
			editor: (title, prefill) =>
				this.dialog({ method: "editor", title, ...(prefill !== undefined ? { prefill } : {}) }, undefined, answerValue),
			form: (title, fields, opts) => {
				const normalized = normalizeFormFields(fields);
				// The extension learns at once that its form is malformed; nothing half-valid reaches a user.
				if ("error" in normalized) return Promise.reject(new Error(`ctx.ui.form: ${normalized.error}`));
				return this.dialog({ method: "form", title, fields: normalized.fields }, opts, (a) =>
					a && "values" in a ? (a.values as Record<string, string>) : undefined,
				);
			},
			notify: (message, type) => {
				const text = String(message ?? "").slice(0, LIMITS.messageChars);
				this.limits.admit("notify", text.length);
				this.publish("extension.notify", {
					message: text,
					level: type === "warning" || type === "error" ? type : "info",
				});
			},
			onTerminalInput: () => {
				this.unavailable.tell("onTerminalInput");
				return () => {};
			},
			setStatus: (key, text) => {
				const k = String(key).slice(0, LIMITS.keyChars);
				if (text === undefined) {
					this.limits.admit("update", 0);
					this.statuses.delete(k);
				} else {
					SessionUiLimits.checkKey("status", this.statuses, k);
					const capped = capStatus(String(text));
					this.limits.admit("update", capped.length);
					this.statuses.set(k, capped);
				}
				this.publish("extension.status", { key: k, ...(text !== undefined ? { text: this.statuses.get(k)! } : {}) });
			},
			setWorkingMessage: () => {},
			setWorkingVisible: () => {},
			setWorkingIndicator: () => {},
			setHiddenThinkingLabel: () => {},
			setWidget: (key: string, content: unknown, options?: { placement?: WidgetPlacement }) => {
				const k = String(key).slice(0, LIMITS.keyChars);
				// TUI component factories cannot cross to a browser; only line widgets can.
				if (content !== undefined && !Array.isArray(content)) return this.unavailable.tell("setWidget");
				if (content === undefined) {
					this.limits.admit("update", 0);
					this.widgets.delete(k);
					this.publish("extension.widget", { key: k });
					return;
				}
				SessionUiLimits.checkKey("widget", this.widgets, k);
				const widget = { lines: capWidgetLines(content), placement: options?.placement ?? "aboveEditor" } as const;
				this.limits.admit(
					"update",
					widget.lines.reduce((sum, line) => sum + line.length, 0),
				);
				this.widgets.set(k, widget);
				this.publish("extension.widget", { key: k, ...widget });
			},
			setFooter: (factory) => {
				if (factory !== undefined) this.unavailable.tell("setFooter");
			},
			setHeader: (factory) => {
				if (factory !== undefined) this.unavailable.tell("setHeader");
			},
			setTitle: (title) => {
				const capped = String(title).slice(0, LIMITS.titleChars);
				this.limits.admit("update", capped.length);
				this.title = capped;
				this.publish("extension.title", { title: this.title });
			},
			custom: (factory, options) => this.customs.show(factory, options),
			overlay: this.overlay.surface,
			pasteToEditor: (text) => setEditorText(this.editorText + text),
			setEditorText,
			getEditorText: () => this.editorText,
			addAutocompleteProvider: () => {},
			setEditorComponent: (factory) => {
				if (factory !== undefined) this.unavailable.tell("setEditorComponent");
			},
			getEditorComponent: () => undefined,
			get theme() {
				return plainTheme;
			},
			getAllThemes: () => [],
			getTheme: () => {
				this.unavailable.tell("getTheme");
				return undefined;
			},
			setTheme: () => ({ success: false, error: "the chamber's theme is the browser's" }),
			getToolsExpanded: () => false,
			setToolsExpanded: () => {},
		} as ChamberUiContext;
	}
}
