/**
 * Runtime action UiDialog (17): the rpi-plugin-sdk open/poll/cancel/response protocol over pier's dialogs.
 *
 * A plugin cannot wait for a person inside a synchronous call, so `open` shows the dialog (an asynchronous pier
 * UI request: select, confirm, input or form) and returns at once; the plugin `poll`s until the answer is in.
 * An answered or cancelled dialog is reported by one poll, which forgets it. Validation follows the SDK's
 * `dialogs::validate` (native-abi.md §3.3, the seed's "Dialog purpose"): `purpose` omitted is a question; a
 * permission needs a tool call id, a flat single choice and a decision on every option; option titles are
 * nonempty, unique and untrimmed-clean everywhere.
 */
import { isRecord } from "../../protocol/json-object.js";
import type { RuntimeRequest, UiRequest } from "../../protocol/frames.js";

export const PERMISSION_DECISIONS = ["allow_once", "allow_always", "reject_once", "reject_always"] as const;
export type PermissionDecision = (typeof PERMISSION_DECISIONS)[number];
export const DIALOG_KINDS = ["input", "selector", "confirm"] as const;
export type DialogKind = (typeof DIALOG_KINDS)[number];
/** Open dialogs a plugin may keep at once (a loop that never polls must not grow pier without bound). */
export const MAX_OPEN_DIALOGS = 64;
/** Request ids are echoed in every answer: a plugin's short handle, not a payload. */
export const MAX_REQUEST_ID_BYTES = 128;

export class DialogError extends Error {
	override name = "DialogError";
}

export interface DialogOption {
	title: string;
	description?: string;
	permission?: PermissionDecision;
}

/** A validated `ui` object. */
export interface DialogSpec {
	purpose: "question" | "permission";
	kind: DialogKind;
	header?: string;
	question: string;
	context?: string;
	placeholder?: string;
	options: DialogOption[];
	allowMultiple: boolean;
	allowFreeform: boolean;
	/** `ui.timeout`, in milliseconds (pier's dialog timeouts are milliseconds too). */
	timeoutMs?: number;
}

function optionalText(ui: Record<string, unknown>, key: string): string | undefined {
	const value = ui[key];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== "string") throw new DialogError(`UiDialog \`ui.${key}\` must be a string`);
	return value;
}

function flag(ui: Record<string, unknown>, key: string): boolean {
	const value = ui[key];
	if (value === undefined || value === null) return false;
	if (typeof value !== "boolean") throw new DialogError(`UiDialog \`ui.${key}\` must be a boolean`);
	return value;
}

/**
 * Checks a dialog as the SDK's `dialogs::validate` does. `toolCallId` is the envelope's (a permission is about
 * one tool call). Throws a DialogError naming the field and the rule.
 */
export function validateDialog(ui: unknown, toolCallId?: string): DialogSpec {
	if (!isRecord(ui)) throw new DialogError("UiDialog `ui` must be an object");
	const purpose = ui.purpose ?? "question";
	if (purpose !== "question" && purpose !== "permission") {
		throw new DialogError(`UiDialog \`ui.purpose\` must be "question" or "permission", got ${JSON.stringify(purpose)}`);
	}
	const rawOptions = ui.options ?? [];
	if (!Array.isArray(rawOptions)) throw new DialogError("UiDialog `ui.options` must be an array");
	const kind = ui.kind ?? (rawOptions.length > 0 ? "selector" : "input");
	if (!DIALOG_KINDS.includes(kind as DialogKind)) {
		throw new DialogError(
			`UiDialog \`ui.kind\` must be one of ${DIALOG_KINDS.join(", ")}, got ${JSON.stringify(kind)}`,
		);
	}
	const options = rawOptions.map((raw, i) => dialogOption(raw, i));
	const titles = new Set<string>();
	for (const [i, option] of options.entries()) {
		if (titles.has(option.title)) {
			throw new DialogError(`UiDialog \`ui.options[${i}].title\` ${JSON.stringify(option.title)} is not unique`);
		}
		titles.add(option.title);
	}
	const spec: DialogSpec = {
		purpose,
		kind: kind as DialogKind,
		question: optionalText(ui, "question") ?? "",
		options,
		allowMultiple: flag(ui, "allowMultiple"),
		allowFreeform: flag(ui, "allowFreeform"),
	};
	for (const key of ["header", "context", "placeholder"] as const) {
		const text = optionalText(ui, key);
		if (text !== undefined) spec[key] = text;
	}
	if (ui.timeout !== undefined && ui.timeout !== null) {
		if (typeof ui.timeout !== "number" || !Number.isInteger(ui.timeout) || ui.timeout <= 0) {
			throw new DialogError("UiDialog `ui.timeout` must be a positive integer (milliseconds)");
		}
		spec.timeoutMs = ui.timeout;
	}
	if (spec.kind === "selector" && options.length === 0 && !spec.allowFreeform) {
		throw new DialogError("UiDialog selector needs at least one option in `ui.options`");
	}
	if (purpose === "permission") checkPermission(ui, spec, toolCallId);
	else if (options.some((o) => o.permission !== undefined)) {
		throw new DialogError('UiDialog option `permission` needs `ui.purpose: "permission"`');
	}
	return spec;
}

function dialogOption(raw: unknown, i: number): DialogOption {
	const at = `ui.options[${i}]`;
	if (!isRecord(raw)) throw new DialogError(`UiDialog \`${at}\` must be an object with a \`title\``);
	const { title, description, permission } = raw;
	if (typeof title !== "string" || title === "") {
		throw new DialogError(`UiDialog \`${at}.title\` must be a non-empty string`);
	}
	if (title.trim() !== title) throw new DialogError(`UiDialog \`${at}.title\` has surrounding whitespace`);
	const option: DialogOption = { title };
	if (description !== undefined && description !== null) {
		if (typeof description !== "string") throw new DialogError(`UiDialog \`${at}.description\` must be a string`);
		option.description = description;
	}
	if (permission !== undefined && permission !== null) {
		if (!PERMISSION_DECISIONS.includes(permission as PermissionDecision)) {
			throw new DialogError(
				`UiDialog \`${at}.permission\` must be one of ${PERMISSION_DECISIONS.join(", ")}, got ${JSON.stringify(permission)}`,
			);
		}
		option.permission = permission as PermissionDecision;
	}
	return option;
}

/** The SDK's permission rules: what a person decides about one tool call, and nothing else. */
function checkPermission(ui: Record<string, unknown>, spec: DialogSpec, toolCallId: string | undefined): void {
	if (typeof toolCallId !== "string" || toolCallId.trim() === "") {
		throw new DialogError("UiDialog permission requires a non-empty `toolCallId`");
	}
	if (spec.kind !== "confirm" && spec.kind !== "selector") {
		throw new DialogError(`UiDialog permission must be a "confirm" or "selector", not "${spec.kind}"`);
	}
	if (ui.questions !== undefined) throw new DialogError("UiDialog permission does not accept nested `questions`");
	if (spec.allowMultiple) throw new DialogError("UiDialog permission does not accept `allowMultiple`");
	if (spec.allowFreeform) throw new DialogError("UiDialog permission does not accept `allowFreeform`");
	if (spec.options.length === 0) throw new DialogError("UiDialog permission needs its decisions in `ui.options`");
	const missing = spec.options.findIndex((o) => o.permission === undefined);
	if (missing >= 0) {
		throw new DialogError(
			`UiDialog permission option \`ui.options[${missing}]\` needs \`permission\` (${PERMISSION_DECISIONS.join(", ")})`,
		);
	}
}

/** The decisions of a validated permission dialog, by title (the SDK's `dialogs::permission_options`). */
export function permissionOptions(spec: DialogSpec): Map<string, PermissionDecision> {
	return new Map(spec.options.flatMap((o) => (o.permission ? [[o.title, o.permission] as const] : [])));
}

// ── the state machine ────────────────────────────────────────────────────────

export type DialogStatus = "pending" | "answered" | "cancelled";

interface OpenDialog {
	requestId: string;
	toolCallId?: string;
	status: DialogStatus;
	answer?: unknown;
	/** Why it ended without an answer, when pier said (a UI failure or timeout). */
	reason?: string;
	controller: AbortController;
}

/** What the bridge needs to show a dialog: pier's asynchronous runtime request. */
export interface DialogHost {
	requestAsync(request: RuntimeRequest, options?: { signal?: AbortSignal }): Promise<unknown>;
	mode: "tui" | "rpc" | "json" | "print";
}

const FREEFORM = "\u0000freeform";
const interactive = (host: DialogHost) => host.mode === "tui" || host.mode === "rpc";

/** One plugin's dialogs (NativeUiState.dialogs). */
export class NativeDialogs {
	private readonly dialogs = new Map<string, OpenDialog>();
	private detached = false;

	/** How many dialogs are known (pending or awaiting their final poll). */
	get size(): number {
		return this.dialogs.size;
	}

	/** Runtime action 17. Returns the result object or throws a DialogError with the SDK's message. */
	handle(args: Record<string, unknown>, host: DialogHost): Record<string, unknown> {
		const op = args.op ?? "open";
		if (typeof op !== "string" || !["open", "poll", "cancel", "response", "respond"].includes(op)) {
			throw new DialogError(`unknown UI dialog operation \`${typeof op === "string" ? op : JSON.stringify(op)}\``);
		}
		// Detached: what was open can still be polled (cancelled), nothing new opens.
		if (!interactive(host) || (this.detached && op === "open")) {
			throw new DialogError("ask_user requires an interactive UI");
		}
		const requestId = args.requestId ?? args.request_id;
		if (typeof requestId !== "string" || requestId.trim() === "") {
			throw new DialogError("missing non-empty `requestId`");
		}
		if (Buffer.byteLength(requestId, "utf8") > MAX_REQUEST_ID_BYTES) {
			throw new DialogError(`\`requestId\` exceeds ${MAX_REQUEST_ID_BYTES} bytes`);
		}
		const toolCallId = typeof args.toolCallId === "string" ? args.toolCallId : undefined;
		switch (op) {
			case "open":
				return this.open(requestId, toolCallId, args.ui === undefined ? args : args.ui, host);
			case "poll":
				return this.poll(requestId);
			case "cancel":
				return this.cancel(requestId);
			default:
				return this.respond(requestId, args.answer !== undefined ? args.answer : args.value);
		}
	}

	private known(requestId: string): OpenDialog {
		const dialog = this.dialogs.get(requestId);
		if (!dialog) throw new DialogError(`unknown UI request \`${requestId}\``);
		return dialog;
	}

	private open(requestId: string, toolCallId: string | undefined, ui: unknown, host: DialogHost) {
		const existing = this.dialogs.get(requestId);
		if (existing) return this.state(existing, false);
		const spec = validateDialog(ui, toolCallId ?? (isRecord(ui) ? (ui.toolCallId as string | undefined) : undefined));
		if (this.dialogs.size >= MAX_OPEN_DIALOGS) {
			throw new DialogError(`too many open UI dialogs (at most ${MAX_OPEN_DIALOGS}); poll or cancel some first`);
		}
		const dialog: OpenDialog = {
			requestId,
			...(toolCallId !== undefined ? { toolCallId } : {}),
			status: "pending",
			controller: new AbortController(),
		};
		this.dialogs.set(requestId, dialog);
		show(spec, host, dialog.controller.signal).then(
			(answer) => {
				if (dialog.status !== "pending") return;
				if (answer === undefined) dialog.status = "cancelled";
				else {
					dialog.status = "answered";
					dialog.answer = answer;
				}
			},
			(error: unknown) => {
				if (dialog.status !== "pending") return;
				dialog.status = "cancelled";
				dialog.reason = error instanceof Error ? error.message : String(error);
			},
		);
		return this.state(dialog, false);
	}

	private poll(requestId: string) {
		return this.state(this.known(requestId), true);
	}

	private cancel(requestId: string) {
		const dialog = this.known(requestId);
		if (dialog.status === "pending") dialog.controller.abort();
		dialog.status = "cancelled";
		delete dialog.answer;
		return { status: "cancelled", requestId };
	}

	private respond(requestId: string, answer: unknown) {
		const dialog = this.known(requestId);
		if (dialog.status === "cancelled") throw new DialogError(`UI request \`${requestId}\` was cancelled`);
		if (dialog.status === "pending") {
			dialog.status = "answered";
			dialog.answer = answer ?? null;
			dialog.controller.abort(); // the answer came from elsewhere: the dialog on screen goes
		}
		return { status: "answered", requestId };
	}

	/** `consume`: a poll reports an ended dialog once. */
	private state(dialog: OpenDialog, consume: boolean): Record<string, unknown> {
		if (consume && dialog.status !== "pending") this.dialogs.delete(dialog.requestId);
		return {
			status: dialog.status,
			requestId: dialog.requestId,
			...(dialog.toolCallId !== undefined ? { toolCallId: dialog.toolCallId } : {}),
			...(dialog.status === "answered" ? { answer: dialog.answer } : {}),
			...(dialog.status === "cancelled" && dialog.reason ? { reason: dialog.reason } : {}),
		};
	}

	/** The plugin is going: every dialog is cancelled and closed, and no new one opens. */
	detach(): void {
		this.detached = true;
		for (const dialog of this.dialogs.values()) {
			if (dialog.status === "pending") dialog.controller.abort();
			dialog.status = "cancelled";
			delete dialog.answer;
		}
	}
}

/** The dialog's text: header, question and context, as pier's dialogs have one title. */
function titleOf(spec: DialogSpec): string {
	const head = [spec.header, spec.question].filter((t) => t !== undefined && t !== "").join(": ");
	const title = [head, spec.context].filter((t) => t !== undefined && t !== "").join("\n");
	return title || (spec.purpose === "permission" ? "Permission" : "Question");
}

const ui = (request: UiRequest, timeoutMs?: number): RuntimeRequest => ({
	kind: "ui",
	ui: { request, ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
});

/** Shows the dialog through pier and resolves with the answer, or undefined when the person dismissed it. */
async function show(spec: DialogSpec, host: DialogHost, signal: AbortSignal): Promise<unknown> {
	const title = titleOf(spec);
	const ask = async (request: UiRequest) =>
		(await host.requestAsync(ui(request, spec.timeoutMs), { signal })) as { type: string; [k: string]: unknown };
	if (spec.kind === "input") {
		const answer = await ask({
			type: "input",
			title,
			...(spec.placeholder !== undefined ? { placeholder: spec.placeholder } : {}),
		});
		return answer.type === "input" ? { text: answer.value ?? "", value: answer.value ?? "" } : undefined;
	}
	if (spec.kind === "confirm" && spec.options.length === 0) {
		const answer = await ask({ type: "confirm", title: spec.header ?? "Confirm", message: spec.question });
		if (answer.type !== "confirmed") return undefined;
		return { confirmed: answer.confirmed === true, values: [answer.confirmed === true ? "Yes" : "No"] };
	}
	if (spec.allowMultiple) {
		const answer = await ask({
			type: "form",
			title,
			fields: spec.options.map((o, i) => ({ id: `option${i}`, label: o.title, type: "checkbox" as const })),
		});
		if (answer.type !== "form") return undefined;
		const values = answer.values as Record<string, string>;
		return { values: spec.options.filter((_, i) => values[`option${i}`] === "true").map((o) => o.title) };
	}
	const options = spec.options.map((o) => ({
		value: o.title,
		label: o.title,
		...(o.description !== undefined ? { description: o.description } : {}),
	}));
	if (spec.allowFreeform) options.push({ value: FREEFORM, label: "Other (type an answer)" });
	const picked = await ask({ type: "select", title, options });
	if (picked.type !== "selected" || typeof picked.value !== "string") return undefined;
	if (picked.value === FREEFORM) {
		const typed = await ask({ type: "input", title });
		return typed.type === "input" ? { values: [], text: typed.value ?? "" } : undefined;
	}
	const decision = permissionOptions(spec).get(picked.value);
	// Answers keep the option's original title in `values` (the SDK's rule), and a permission its decision.
	return { values: [picked.value], value: picked.value, ...(decision ? { permission: decision } : {}) };
}
