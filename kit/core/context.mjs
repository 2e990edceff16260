/**
 * What handlers see: pi's session actions (on `pi` and on `ctx`) and the per-invocation `ctx` with its snapshot
 * getters, `ui` and signal. Every action resolves with the host's answer, as in rpi (`appendEntry` → the entry id,
 * `compact` → the compaction result once it is done).
 */
import { createUi } from "./ui.mjs";

/**
 * pi's session actions as protocol v1 `action` requests. `act(action)` sends one for the invocation the call
 * belongs to and resolves with the host's value.
 */
export function sessionActions(act) {
	return {
		sendMessage: (message, options = {}) =>
			act({
				kind: "send_message",
				message: {
					customType: message.customType,
					content: message.content,
					display: message.display !== false,
					...(message.details !== undefined ? { details: message.details } : {}),
				},
				delivery: options.deliverAs ?? "steer",
				triggerTurn: options.triggerTurn === true,
			}),
		sendUserMessage: (content, options = {}) =>
			act({ kind: "send_user_message", content, delivery: options.deliverAs ?? "steer" }),
		appendEntry: (customType, data) =>
			act({ kind: "append_entry", customType: String(customType), ...(data !== undefined ? { data } : {}) }),
		setSessionName: (name) => act({ kind: "set_session_name", name: String(name) }),
		setLabel: (entryId, label) =>
			act({ kind: "set_label", entryId: String(entryId), ...(label !== undefined ? { label } : {}) }),
		setActiveTools: (toolNames) => act({ kind: "set_active_tools", toolNames: toolNames.map(String) }),
		setModel: (model) => act({ kind: "set_model", model }),
		setThinkingLevel: (level) => act({ kind: "set_thinking_level", level }),
		// pier additions: the live values (the snapshot's may be older) and the session's branch.
		fetchSystemPrompt: () => act({ kind: "get_system_prompt" }),
		fetchThinkingLevel: () => act({ kind: "get_thinking_level" }),
		fetchActiveTools: () => act({ kind: "get_active_tools" }),
		fetchAllTools: () => act({ kind: "get_all_tools" }),
		fetchCommands: () => act({ kind: "get_commands" }),
		getSessionBranch: () => act({ kind: "get_session_branch" }),
	};
}

export const SESSION_ACTION_NAMES = Object.freeze(Object.keys(sessionActions(() => undefined)));

/** pi's synchronous getters, read from an invocation context snapshot (REFERENCES.md §7). */
export function snapshotGetters(snapshot, flagDefault) {
	const read = () => snapshot() || {};
	return {
		getFlag: (name) => {
			const values = read().flagValues;
			return values && Object.hasOwn(values, name) ? values[name] : flagDefault(name);
		},
		getSessionName: () => read().sessionName,
		getThinkingLevel: () => read().thinkingLevel,
		getActiveTools: () => read().activeTools || [],
		getAllTools: () => (read().allTools || []).map((tool) => (typeof tool === "string" ? { name: tool } : tool)),
		getCommands: () => read().commands || [],
	};
}

const GUEST = Symbol("guest");
const STATE = Symbol("invocation");
const UI = Symbol("ui");
const ACTIONS = Symbol("actions");

/**
 * The `ctx` of one invocation. A class, so a pipelined call allocates a few fields rather than dozens of closures;
 * `ui`, the signal and the actions are made on first use, and methods bind on first read, so
 * `const { ui, abort } = ctx` works as with pi's plain-object context.
 */
export class InvocationContext {
	constructor(guest, state) {
		Object.defineProperty(this, GUEST, { value: guest });
		Object.defineProperty(this, STATE, { value: state });
		const { mode, cwd, projectTrusted } = guest.host;
		const snapshot = state.context;
		this.cwd = cwd;
		this.mode = mode;
		this.projectTrusted = projectTrusted;
		this.hasUI = (mode === "tui" || mode === "rpc") && guest.manifest.uiCapabilities.length > 0;
		this.sessionName = snapshot?.sessionName;
		this.sessionId = snapshot?.sessionId;
		this.sessionFile = snapshot?.sessionFile;
		this.model = snapshot?.model;
		this.thinkingLevel = snapshot?.thinkingLevel;
	}

	get signal() {
		return this[GUEST].signalOf(this[STATE]);
	}

	get ui() {
		if (!this[UI]) {
			const guest = this[GUEST];
			const state = this[STATE];
			Object.defineProperty(this, UI, {
				value: createUi(
					(request, map, options = {}) => guest.requests.ui(request, map, { ...options, invocation: state }),
					guest.runtime,
				),
			});
		}
		return this[UI];
	}

	isIdle() {
		return this[STATE].context?.isIdle;
	}

	hasPendingMessages() {
		return this[STATE].context?.hasPendingMessages;
	}

	getContextUsage() {
		const usage = this[STATE].context?.contextUsage;
		return (
			usage && { tokens: usage.tokens ?? null, contextWindow: usage.contextWindow, percent: usage.percent ?? null }
		);
	}

	getSystemPrompt() {
		return this[STATE].context?.systemPrompt;
	}

	/**
	 * pi 1.6's answer for this session: the snapshot's, which pier takes from pi's `ctx.isProjectTrusted()`.
	 * Without a snapshot (a host with no session) the trust the host said in its hello.
	 */
	isProjectTrusted() {
		const trusted = this[STATE].context?.projectTrusted;
		return typeof trusted === "boolean" ? trusted : this[GUEST].host.projectTrusted === true;
	}

	act(action) {
		return this[GUEST].requests.action(action, this[STATE]);
	}

	abort() {
		return this.act({ kind: "abort" });
	}

	shutdown() {
		return this.act({ kind: "shutdown" });
	}

	reload() {
		return this.act({ kind: "reload" });
	}

	waitForIdle() {
		return this.act({ kind: "wait_for_idle" });
	}

	// Session replacement: pi allows it in command handlers only, and the host refuses it elsewhere.
	newSession(options = {}) {
		const { parentSession } = options;
		return this.act({ kind: "new_session", ...(parentSession !== undefined ? { parentSession } : {}) });
	}

	fork(entryId, options = {}) {
		return this.act({
			kind: "fork",
			entryId,
			...(options.position !== undefined ? { position: options.position } : {}),
		});
	}

	navigateTree(targetId, options = {}) {
		const picked = {};
		for (const key of ["summarize", "customInstructions", "replaceInstructions", "label"]) {
			if (options[key] !== undefined) picked[key] = options[key];
		}
		return this.act({ kind: "navigate_tree", targetId, ...picked });
	}

	switchSession(sessionPath) {
		return this.act({ kind: "switch_session", sessionPath });
	}

	/** rpi: a string is the custom instructions; pi's options object (with its callbacks) works too. */
	compact(instructionsOrOptions) {
		const options =
			typeof instructionsOrOptions === "string"
				? { customInstructions: instructionsOrOptions }
				: instructionsOrOptions || {};
		const { customInstructions, onComplete, onError } = options;
		const result = this.act({ kind: "compact", ...(customInstructions !== undefined ? { customInstructions } : {}) });
		if (onComplete || onError) result.then(onComplete, onError).catch(() => {});
		return result;
	}

	sessionAction(name, args) {
		if (!this[ACTIONS]) {
			const guest = this[GUEST];
			const state = this[STATE];
			Object.defineProperty(this, ACTIONS, { value: sessionActions((action) => guest.requests.action(action, state)) });
		}
		return this[ACTIONS][name](...args);
	}
}

for (const name of SESSION_ACTION_NAMES) {
	Object.defineProperty(InvocationContext.prototype, name, {
		configurable: true,
		value(...args) {
			return this.sessionAction(name, args);
		},
	});
}

// Methods read off a context keep working detached, as pi's plain-object methods do.
for (const name of [
	...SESSION_ACTION_NAMES,
	"isIdle",
	"hasPendingMessages",
	"getContextUsage",
	"getSystemPrompt",
	"isProjectTrusted",
	"abort",
	"shutdown",
	"reload",
	"waitForIdle",
	"compact",
	"newSession",
	"fork",
	"navigateTree",
	"switchSession",
]) {
	const method = Object.getOwnPropertyDescriptor(InvocationContext.prototype, name).value;
	Object.defineProperty(InvocationContext.prototype, name, {
		get() {
			const bound = method.bind(this);
			Object.defineProperty(this, name, { value: bound });
			return bound;
		},
	});
}
