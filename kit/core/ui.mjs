/**
 * `ctx.ui`: pi's ExtensionUIContext as protocol v1 UI requests (docs/protocol-v1.md §6). `ui(request, map, opts)`
 * is the guest's request path (capability gate, cancellation, timeout); what is here is argument shaping and how
 * each answer becomes the value pi's method returns. Argument coercion and answer mapping follow rpi's QuickJS
 * bootstrap; fire-and-forget calls still return their promise, so a host refusal stays observable.
 */
import { formFields } from "./form.mjs";

const acknowledged = () => undefined;
const answer = (type, read) => (response) => (response && response.type === type ? read(response) : undefined);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** rpi's `{ timeout }`: a finite non-negative number of milliseconds, floored; anything else means none. */
function dialogOptions(opts) {
	const out = {};
	const timeout = opts?.timeout;
	if (typeof timeout === "number" && Number.isFinite(timeout) && timeout >= 0) out.timeout = Math.floor(timeout);
	if (opts?.signal) out.signal = opts.signal;
	return out;
}

function selectOption(option) {
	if (typeof option === "string") return { value: option, label: option };
	const value = option.value === undefined ? option.label : option.value;
	return {
		value: String(value),
		label: String(option.label === undefined ? value : option.label),
		...(option.description !== undefined ? { description: String(option.description) } : {}),
	};
}

function overlayRow(row) {
	if (typeof row === "string") return { text: row };
	if (isObject(row) && typeof row.text === "string") {
		return { text: row.text, ...(row.style === undefined ? {} : { style: String(row.style) }) };
	}
	throw new Error("overlay rows must be strings or { text, style? } objects");
}

function workingIndicator(options) {
	if (options === undefined) return undefined;
	if (!isObject(options)) throw new Error("ui.setWorkingIndicator requires an options object");
	const out = {};
	if (options.frames !== undefined) {
		if (!Array.isArray(options.frames)) throw new Error("ui.setWorkingIndicator frames must be an array");
		out.frames = options.frames.map(String);
	}
	if (options.intervalMs !== undefined) {
		if (!Number.isSafeInteger(options.intervalMs) || options.intervalMs < 0) {
			throw new Error("ui.setWorkingIndicator intervalMs must be a non-negative integer");
		}
		out.intervalMs = options.intervalMs;
	}
	return out;
}

/**
 * The ui object of one invocation. `ui(request, map, options)` sends the request and resolves with `map(answer)`;
 * `runtime` names the runtime in the errors of what cannot cross the protocol (TUI components).
 */
export function createUi(ui, runtime) {
	const unavailable = (method) => () => {
		throw new Error(`${method} is unavailable in the ${runtime} runtime`);
	};
	// A shaping error rejects like the request would, so `await` is the one place an author handles failures.
	const shaped = (build, map, opts) => {
		let request;
		try {
			request = build();
		} catch (error) {
			return Promise.reject(error);
		}
		return ui(request, map, opts);
	};
	return {
		select: (title, options, opts) =>
			ui(
				{ type: "select", title: String(title), options: options.map(selectOption) },
				answer("selected", (r) => r.value),
				dialogOptions(opts),
			),
		confirm: (title, message, opts) =>
			ui(
				{ type: "confirm", title: String(title), message: String(message) },
				(r) => Boolean(r && r.type === "confirmed" && r.confirmed === true),
				dialogOptions(opts),
			),
		input: (title, placeholder, opts) =>
			ui(
				{
					type: "input",
					title: String(title),
					...(placeholder !== undefined ? { placeholder: String(placeholder) } : {}),
				},
				answer("input", (r) => r.value),
				dialogOptions(opts),
			),
		editor: (title, prefill, opts) =>
			ui(
				{ type: "editor", title: String(title), ...(prefill !== undefined ? { prefill: String(prefill) } : {}) },
				answer("edited", (r) => r.value),
				dialogOptions(opts),
			),
		// pier addition: PiChamber's form (kit/core/form.mjs has its rules).
		form: (title, fields, opts) =>
			shaped(
				() => ({ type: "form", title: String(title), fields: formFields(fields) }),
				answer("form", (r) => r.values),
				dialogOptions(opts),
			),
		notify: (message, level = "info") => ui({ type: "notify", message: String(message), level }, acknowledged),
		setStatus: (key, text) =>
			ui({ type: "status", key: String(key), ...(text !== undefined ? { text: String(text) } : {}) }, acknowledged),
		setWidget: (key, lines, options) => {
			if (lines !== undefined && (!Array.isArray(lines) || lines.some((line) => typeof line !== "string"))) {
				throw new TypeError(
					`ui.setWidget: the ${runtime} runtime can only set string[] widgets (TUI component factories cannot cross the protocol)`,
				);
			}
			const placement = options && (options.placement === "belowEditor" || options.placement === "below_editor");
			return ui(
				{
					type: "widget",
					key: String(key),
					...(lines !== undefined ? { lines } : {}),
					placement: placement ? "below_editor" : "above_editor",
				},
				acknowledged,
			);
		},
		setTitle: (title) => ui({ type: "title", title: String(title) }, acknowledged),
		setEditorText: (text) => ui({ type: "set_editor_text", text: String(text) }, acknowledged),
		getEditorText: () => ui({ type: "get_editor_text" }, (r) => (r && r.value !== undefined ? r.value : "")),
		pasteToEditor: (text) => ui({ type: "paste_to_editor", text: String(text) }, acknowledged),
		setWorkingMessage: (message) =>
			ui({ type: "set_working_message", ...(message !== undefined ? { message: String(message) } : {}) }, acknowledged),
		setWorkingVisible: (visible) => ui({ type: "set_working_visible", visible: Boolean(visible) }, acknowledged),
		setWorkingIndicator: (options) => {
			const normalized = workingIndicator(options);
			return ui(
				{ type: "set_working_indicator", ...(normalized !== undefined ? { options: normalized } : {}) },
				acknowledged,
			);
		},
		setHiddenThinkingLabel: (label) =>
			ui({ type: "set_hidden_thinking_label", ...(label !== undefined ? { label: String(label) } : {}) }, acknowledged),
		getAllThemes: () =>
			ui({ type: "get_all_themes" }, (r) =>
				Array.isArray(r?.themes)
					? r.themes.map((t) => ({ name: t.name, ...(t.path !== undefined ? { path: t.path } : {}) }))
					: [],
			),
		getTheme: (name) => ui({ type: "get_theme", name: String(name) }, (r) => r?.theme),
		setTheme: (theme) => {
			const name = typeof theme === "string" ? theme : theme?.name;
			if (typeof name !== "string" || name === "") {
				return Promise.resolve({ success: false, error: "extensions can only set themes by name" });
			}
			return ui({ type: "set_theme", name }, (r) => ({
				success: Boolean(r && r.success === true),
				...(r && r.error !== undefined ? { error: String(r.error) } : {}),
			}));
		},
		getToolsExpanded: () => ui({ type: "get_tools_expanded" }, (r) => Boolean(r?.expanded)),
		setToolsExpanded: (expanded) => ui({ type: "set_tools_expanded", expanded: Boolean(expanded) }, acknowledged),
		// Overlays (rpi): the extension supplies rows only; the host draws, bounds and redacts them.
		setRows: (id, rows) => {
			if (typeof id !== "string" || id === "") {
				return Promise.reject(new Error("overlay.setRows requires a non-empty overlay id"));
			}
			if (!Array.isArray(rows)) return Promise.reject(new Error("overlay.setRows requires an array of rows"));
			return shaped(() => ({ type: "overlay_set_rows", id, rows: rows.map(overlayRow) }), acknowledged);
		},
		open: (id, options) => {
			if (typeof id !== "string" || id === "") {
				return Promise.reject(new Error("overlay.open requires a non-empty overlay id"));
			}
			if (options !== undefined && !isObject(options)) {
				return Promise.reject(new Error("overlay.open options must be an object"));
			}
			return ui({ type: "overlay_open", id, nonCapturing: Boolean(options?.nonCapturing) }, acknowledged);
		},
		custom: unavailable("ui.custom component factories"),
		setFooter: unavailable("ui.setFooter component factories"),
		setHeader: unavailable("ui.setHeader component factories"),
		onTerminalInput: unavailable("ui.onTerminalInput"),
		addAutocompleteProvider: unavailable("ui.addAutocompleteProvider"),
		setEditorComponent: unavailable("ui.setEditorComponent factories"),
		getEditorComponent: unavailable("ui.getEditorComponent"),
	};
}
