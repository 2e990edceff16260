/**
 * A native plugin's `runtime_action(id, args_json, out)` answered from pier's session (native-abi.md §3).
 *
 * Pure: no koffi here. The plugin host calls `runtimeAction` on its main thread and writes `out` back; every
 * answer comes from pier through protocol v1 runtime requests (`ui` and `action` kinds), synchronously
 * (`host.request`) where the plugin needs the value, asynchronously (`host.requestAsync`) where rpi answers at
 * once (dialogs, statuses, components, reload). Codes: 0 ok with the result JSON, 1 host error with
 * `{"error": msg}`, 2 unknown id `{"error":"unknown runtime action id N"}` (nothing dispatched; 23–25 too),
 * -1 no bridge. Arguments that are empty or not JSON count as `{}`.
 *
 * Results (JSON) by id:
 *   0 SendMessage, 1 SendUserMessage, 3 SetSessionName, 5 SetActiveTools, 8 SetThinkingLevel, 9 Compact → {"ok":true}
 *   2 AppendEntry → {"ok":true,"entryId"} ({"ok":true,"queued":bool} for the `{message}` form)
 *   4 GetActiveTools → {"tools":[…]}; 6 SetModel → {"ok":bool}; 7 GetThinkingLevel → {"level"}
 *   10 GetSystemPrompt → {"prompt"}; 11–14 NewSession, Fork, NavigateTree, SwitchSession → {"cancelled":bool}
 *   15 Reload → null; 16 GetCliFlag → {"value"}; 17 UiDialog (dialogs.ts); 18 SetStatus → {"ok":true,"changed"}
 *   19 SetEditorText → {"ok":true,"chars"}; 20 GetSessionBranch → {"entries":[…]}
 *   21 StdioLifecycle → {"supported":true,"owner","finished","exitCode"?} / {"ok":true,"exitCode"}
 *   22 UiComponent (components.ts)
 */
import type { ContextSnapshot, RuntimeAction, RuntimeRequest } from "../../protocol/frames.js";
import {
	ActionError,
	type Args,
	action,
	contentOf,
	customMessage,
	deliveryOf,
	isRecord,
	modelRef,
	OK,
	optionalFlag,
	optionalText,
	text,
	thinkingLevel,
	toolNames,
	ui,
} from "./action-args.js";
import { ComponentError, NativeComponents } from "./components.js";
import { DialogError, NativeDialogs } from "./dialogs.js";

/** A refusal with the message the plugin reads (code 1). */
export { ActionError };

/** The latest invocation context the plugin host saw (bridge/context.ts's snapshot). */
export type InvocationSnapshot = ContextSnapshot;

export interface NativeActionHost {
	/** Synchronous round trip to pier; throws Error(message) on a failure. */
	request(request: RuntimeRequest): unknown;
	/** `signal` cancels the request at pier (a dialog cancelled by the plugin closes). */
	requestAsync(request: RuntimeRequest, options?: { signal?: AbortSignal }): Promise<unknown>;
	snapshot(): InvocationSnapshot | undefined;
	flag(name: string): boolean | string | undefined;
	mode: "tui" | "rpc" | "json" | "print";
	stdio: { owner: boolean; finish(code: number): void };
	/** The plugin's extension id: names its widgets (`native:<id>:<component>`). */
	extensionId?: string;
}

/** What one plugin's runtime actions remember between calls. */
export interface NativeUiState {
	dialogs: NativeDialogs;
	components: NativeComponents;
	/** SetStatus values by key (to answer `changed`). */
	statuses: Map<string, string>;
	/** The first StdioLifecycle finish code (an early finish is retained). */
	stdioExitCode: number | undefined;
}

export function createNativeUiState(): NativeUiState {
	return {
		dialogs: new NativeDialogs(),
		components: new NativeComponents(),
		statuses: new Map(),
		stdioExitCode: undefined,
	};
}

/** The plugin is unloading: its dialogs are cancelled, its components and statuses cleared. */
export function detachNativeUi(state: NativeUiState, host: NativeActionHost): void {
	state.dialogs.detach();
	state.components.detach(host);
	for (const key of state.statuses.keys()) send(host, ui({ type: "status", key }));
	state.statuses.clear();
}

export const RUNTIME_ACTION = {
	SendMessage: 0,
	SendUserMessage: 1,
	AppendEntry: 2,
	SetSessionName: 3,
	GetActiveTools: 4,
	SetActiveTools: 5,
	SetModel: 6,
	GetThinkingLevel: 7,
	SetThinkingLevel: 8,
	Compact: 9,
	GetSystemPrompt: 10,
	NewSession: 11,
	Fork: 12,
	NavigateTree: 13,
	SwitchSession: 14,
	Reload: 15,
	GetCliFlag: 16,
	UiDialog: 17,
	SetStatus: 18,
	SetEditorText: 19,
	GetSessionBranch: 20,
	StdioLifecycle: 21,
	UiComponent: 22,
} as const;

export type RuntimeActionCode = 0 | 1 | 2 | -1;
export interface RuntimeActionAnswer {
	code: RuntimeActionCode;
	/** JSON text. */
	out: string;
}

function parse(argsJson: string): unknown {
	if (argsJson.trim() === "") return {};
	try {
		return JSON.parse(argsJson);
	} catch {
		return {};
	}
}

/** Fire and forget: what the plugin does not wait for must not fail it later either. */
const send = (host: NativeActionHost, request: RuntimeRequest) => void host.requestAsync(request).catch(() => {});

export function runtimeAction(
	id: number,
	argsJson: string,
	host: NativeActionHost | undefined,
	state: NativeUiState,
): RuntimeActionAnswer {
	if (!host) return { code: -1, out: JSON.stringify({ error: "runtime_action has no session bridge" }) };
	const handler = Number.isInteger(id) ? HANDLERS[id] : undefined;
	if (!handler) return { code: 2, out: JSON.stringify({ error: `unknown runtime action id ${id}` }) };
	const raw = parse(argsJson);
	try {
		const result = handler(isRecord(raw) ? raw : {}, host, state, raw);
		return { code: 0, out: JSON.stringify(result === undefined ? null : result) };
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		return { code: 1, out: JSON.stringify({ error: message }) };
	}
}

type Handler = (args: Args, host: NativeActionHost, state: NativeUiState, raw: unknown) => unknown;

const sendMessage: Handler = (args, host, _state, raw) => {
	const what = "send_message";
	const { delivery, triggerTurn } = deliveryOf(args, what);
	const message: Args = typeof raw === "string" ? { text: raw } : isRecord(args.message) ? args.message : args;
	if (message.role === "user" || message.kind === "user") {
		if (delivery === "nextTurn") throw new ActionError(`${what}: a user message cannot be delivered as nextTurn`);
		host.request(action({ kind: "send_user_message", content: contentOf(message.content, what), delivery }));
		return OK;
	}
	host.request(
		action({
			kind: "send_message",
			message: customMessage(message, what),
			delivery,
			...(triggerTurn !== undefined ? { triggerTurn } : {}),
		}),
	);
	return OK;
};

const sendUserMessage: Handler = (args, host, _state, raw) => {
	const what = "send_user_message";
	const content =
		typeof raw === "string" ? raw : args.content !== undefined ? contentOf(args.content, what) : args.text;
	if (typeof content !== "string" && !Array.isArray(content))
		throw new ActionError(`${what} requires \`text\` or \`content\``);
	const { delivery } = deliveryOf(args, what);
	if (delivery === "nextTurn") throw new ActionError(`${what} cannot be delivered as nextTurn`);
	host.request(action({ kind: "send_user_message", content, delivery }));
	return OK;
};

const appendEntry: Handler = (args, host) => {
	if (isRecord(args.message)) {
		// Context for the model: added now when idle, after the running turn otherwise.
		const queued = host.snapshot()?.isIdle === false;
		const message = customMessage(args.message, "append_entry");
		host.request(action({ kind: "send_message", message, delivery: queued ? "followUp" : "steer" }));
		return { ok: true, queued };
	}
	const customType = args.customType;
	if (typeof customType !== "string" || customType === "") {
		throw new ActionError("append_entry requires a string `customType` (or a `message`)");
	}
	const entryId = host.request(
		action({ kind: "append_entry", customType, ...(args.data !== undefined ? { data: args.data } : {}) }),
	);
	return { ok: true, entryId: entryId ?? null };
};

const cancelledOf = (value: unknown) => ({ cancelled: isRecord(value) && value.cancelled === true });

const navigateTree: Handler = (args, host) => {
	const what = "navigate_tree";
	const targetId = args.targetId ?? args.entryId;
	if (typeof targetId !== "string" || targetId === "") throw new ActionError(`${what} requires a string \`targetId\``);
	const request: Extract<RuntimeAction, { kind: "navigate_tree" }> = { kind: "navigate_tree", targetId };
	for (const key of ["summarize", "replaceInstructions"] as const) {
		const value = optionalFlag(args, key, what);
		if (value !== undefined) request[key] = value;
	}
	for (const key of ["customInstructions", "label"] as const) {
		const value = optionalText(args, key, what);
		if (value !== undefined) request[key] = value;
	}
	return cancelledOf(host.request(action(request)));
};

const reload: Handler = (_args, host) => {
	if (host.mode !== "tui" && host.mode !== "rpc") {
		throw new ActionError(`reload needs an interactive session (tui or rpc mode); this run is in ${host.mode} mode`);
	}
	// Answered at once, as rpi does: the reload restarts this plugin's host, which must not be waiting for it.
	send(host, action({ kind: "reload" }));
	return null;
};

const setStatus: Handler = (args, host, state) => {
	if (typeof args.key !== "string" || args.key.trim() === "")
		throw new ActionError("set_status requires a string `key`");
	const key = args.key.trim();
	if (args.value === undefined && args.panel !== undefined) {
		throw new ActionError("set_status no longer accepts `panel`: send `value` text, or use UiComponent (22)");
	}
	if (args.value !== undefined && args.value !== null && typeof args.value !== "string") {
		throw new ActionError("set_status `value` must be a string");
	}
	const value = typeof args.value === "string" && args.value !== "" ? args.value : undefined;
	const changed = state.statuses.get(key) !== value;
	if (value === undefined) state.statuses.delete(key);
	else state.statuses.set(key, value);
	if (changed) send(host, ui({ type: "status", key, ...(value !== undefined ? { text: value } : {}) }));
	return { ok: true, changed };
};

const setEditorText: Handler = (args, host) => {
	const what = "set_editor_text";
	const value = text(args, "text", what);
	const mode = args.mode ?? "replace";
	if (mode !== "replace" && mode !== "append") throw new ActionError(`${what} \`mode\` must be "replace" or "append"`);
	const autoSendMs = args.autoSendMs;
	if (
		autoSendMs !== undefined &&
		autoSendMs !== null &&
		(typeof autoSendMs !== "number" || !Number.isInteger(autoSendMs) || autoSendMs < 0)
	) {
		throw new ActionError(`${what} \`autoSendMs\` must be a non-negative integer`);
	}
	// Headless runs have no editor: accepted, as rpi does.
	if (host.mode !== "tui" && host.mode !== "rpc") return { ok: true, chars: [...value].length };
	let next = value;
	if (mode === "append") {
		const current = host.request(ui({ type: "get_editor_text" })) as { value?: unknown } | null;
		next = `${typeof current?.value === "string" ? current.value : ""}${value}`;
	}
	host.request(ui({ type: "set_editor_text", text: next }));
	if (typeof autoSendMs === "number") {
		// pier's editor has no submit: after the delay the editor's text (as the person left it) is sent.
		setTimeout(() => {
			host
				.requestAsync(ui({ type: "get_editor_text" }))
				.then((answer) => {
					const textNow = (answer as { value?: unknown } | null)?.value;
					if (typeof textNow !== "string" || textNow.trim() === "") return;
					send(host, ui({ type: "set_editor_text", text: "" }));
					send(host, action({ kind: "send_user_message", content: textNow, delivery: "followUp" }));
				})
				.catch(() => {});
		}, autoSendMs).unref?.();
	}
	return { ok: true, chars: [...next].length };
};

const stdioLifecycle: Handler = (args, host, state) => {
	const op = args.op ?? "status";
	if (op === "status") {
		return {
			supported: true,
			owner: host.stdio.owner,
			finished: state.stdioExitCode !== undefined,
			...(state.stdioExitCode !== undefined ? { exitCode: state.stdioExitCode } : {}),
		};
	}
	if (op !== "finish") {
		throw new ActionError(`unknown stdio lifecycle operation ${JSON.stringify(op)} (expected "status" or "finish")`);
	}
	if (!host.stdio.owner)
		throw new ActionError('stdio_lifecycle finish: only the plugin that declared "ownsStdio" may finish');
	const code = args.exitCode ?? 0;
	if (typeof code !== "number" || !Number.isInteger(code) || code < 0 || code > 255) {
		throw new ActionError("stdio_lifecycle `exitCode` must be an integer 0–255");
	}
	// The first finish stands: a plugin that finishes early keeps that code whatever it says later.
	if (state.stdioExitCode === undefined) {
		state.stdioExitCode = code;
		host.stdio.finish(code);
	}
	return { ok: true, exitCode: state.stdioExitCode };
};

function uiModule(handle: () => Record<string, unknown>): unknown {
	try {
		return handle();
	} catch (error) {
		if (error instanceof DialogError || error instanceof ComponentError) throw new ActionError(error.message);
		throw error;
	}
}

const HANDLERS: Record<number, Handler> = {
	[RUNTIME_ACTION.SendMessage]: sendMessage,
	[RUNTIME_ACTION.SendUserMessage]: sendUserMessage,
	[RUNTIME_ACTION.AppendEntry]: appendEntry,
	[RUNTIME_ACTION.SetSessionName]: (args, host) => {
		host.request(action({ kind: "set_session_name", name: text(args, "name", "set_session_name") }));
		return OK;
	},
	[RUNTIME_ACTION.GetActiveTools]: (_args, host) => ({ tools: host.request(action({ kind: "get_active_tools" })) }),
	[RUNTIME_ACTION.SetActiveTools]: (args, host) => {
		host.request(action({ kind: "set_active_tools", toolNames: toolNames(args) }));
		return OK;
	},
	[RUNTIME_ACTION.SetModel]: (args, host, _state, raw) => ({
		ok: host.request(action({ kind: "set_model", model: modelRef(args, raw) })) === true,
	}),
	[RUNTIME_ACTION.GetThinkingLevel]: (_args, host) => ({ level: host.request(action({ kind: "get_thinking_level" })) }),
	[RUNTIME_ACTION.SetThinkingLevel]: (args, host) => {
		host.request(action({ kind: "set_thinking_level", level: thinkingLevel(args) }));
		return OK;
	},
	[RUNTIME_ACTION.Compact]: (args, host) => {
		const customInstructions = optionalText(args, "customInstructions", "compact");
		host.request(action({ kind: "compact", ...(customInstructions ? { customInstructions } : {}) }));
		return OK;
	},
	[RUNTIME_ACTION.GetSystemPrompt]: (_args, host) => ({ prompt: host.request(action({ kind: "get_system_prompt" })) }),
	[RUNTIME_ACTION.NewSession]: (args, host) => {
		const parentSession = optionalText(args, "parentSession", "new_session");
		return cancelledOf(host.request(action({ kind: "new_session", ...(parentSession ? { parentSession } : {}) })));
	},
	[RUNTIME_ACTION.Fork]: (args, host) => {
		const entryId = text(args, "entryId", "fork");
		const position = args.position;
		if (position !== undefined && position !== "before" && position !== "at") {
			throw new ActionError('fork `position` must be "before" or "at"');
		}
		return cancelledOf(host.request(action({ kind: "fork", entryId, ...(position ? { position } : {}) })));
	},
	[RUNTIME_ACTION.NavigateTree]: navigateTree,
	[RUNTIME_ACTION.SwitchSession]: (args, host) => {
		const sessionPath = args.sessionPath ?? args.path;
		if (typeof sessionPath !== "string" || sessionPath === "") {
			throw new ActionError("switch_session requires a string `sessionPath`");
		}
		return cancelledOf(host.request(action({ kind: "switch_session", sessionPath })));
	},
	[RUNTIME_ACTION.Reload]: reload,
	[RUNTIME_ACTION.GetCliFlag]: (args, host) => {
		const name = text(args, "name", "get_cli_flag");
		if (typeof host.flag !== "function") throw new ActionError("CLI flag lookup is not configured");
		return { value: host.flag(name) ?? null };
	},
	[RUNTIME_ACTION.UiDialog]: (args, host, state) => uiModule(() => state.dialogs.handle(args, host)),
	[RUNTIME_ACTION.SetStatus]: setStatus,
	[RUNTIME_ACTION.SetEditorText]: setEditorText,
	[RUNTIME_ACTION.GetSessionBranch]: (_args, host) => ({
		entries: host.request(action({ kind: "get_session_branch" })),
	}),
	[RUNTIME_ACTION.StdioLifecycle]: stdioLifecycle,
	[RUNTIME_ACTION.UiComponent]: (args, host, state) => uiModule(() => state.components.handle(args, host)),
};
