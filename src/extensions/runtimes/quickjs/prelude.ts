/**
 * The guest side of protocol v1 inside QuickJS: pi's factory API (`export default
 * function (pi)`) turned into frames. It runs in the sandbox; its only ways out
 * are `__pier_send(json)` and the frames the host delivers to `__pier_receive`.
 * Plain ES2020, evaluated as a script before the extension's module.
 */
export const PRELUDE = String.raw`
(() => {
  const send = globalThis.__pier_send;
  delete globalThis.__pier_send;
  const extensionId = globalThis.__pier_manifest.id;
  const state = { phase: "handshake", hello: null, snapshot: null, loadId: null, seq: 0, factory: null };
  const tools = new Map(), commands = new Map(), hooks = new Map(), shortcuts = new Map(), flags = new Map();
  const pendingRequests = new Map(); // our runtime request id -> {resolve, reject}
  const running = new Map(); // host request id -> invocation
  const frame = (value) => send(JSON.stringify(value));
  const success = (value) => ({ status: "success", value: value === undefined ? null : value });
  const failure = (code, message) => ({ status: "failure", error: { code, message: String(message) } });
  // A guest error as the user reads it: its message, whose extension it is and where it was thrown.
  const errorText = (error) => {
    const message = error && error.message ? String(error.message) : String(error);
    const stack = error && typeof error.stack === "string" ? error.stack : "";
    const at = /\bat .*?\(?([^()\s]+:\d+(?::\d+)?)\)?/.exec(stack);
    const where = at && at[1].indexOf("pier-prelude.js") === -1 ? ", at " + at[1] : "";
    return message + " (QuickJS extension " + extensionId + where + ")";
  };
  const respond = (id, result) => {
    try { frame({ type: "response", id, result }); }
    catch (error) { frame({ type: "response", id, result: failure("frame_too_large", error && error.message) }); }
  };

  class Signal {
    constructor() { this.aborted = false; this.reason = undefined; this.listeners = []; this.onabort = null; }
    addEventListener(type, fn) { if (type === "abort") this.listeners.push(fn); }
    removeEventListener(type, fn) { this.listeners = this.listeners.filter((l) => l !== fn); }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    abort(reason) {
      if (this.aborted) return;
      this.aborted = true; this.reason = reason;
      for (const fn of [this.onabort, ...this.listeners]) if (fn) try { fn({ type: "abort" }); } catch (e) {}
    }
  }

  const requireLive = (what) => {
    if (state.phase !== "live") throw new Error(what + " is unavailable during the " + state.phase + " phase (call it from a handler, not the factory)");
  };
  const request = (req) => {
    requireLive("a runtime request");
    const id = "qjs-" + (++state.seq);
    return new Promise((resolve, reject) => {
      pendingRequests.set(id, { resolve, reject });
      frame({ type: "request", id, request: req });
    });
  };
  const ui = (req, map, timeoutMs) =>
    request({ kind: "ui", ui: timeoutMs ? { request: req, timeoutMs } : { request: req } }).then(map);
  const act = (action, map) => request({ kind: "action", action }).then(map || ((v) => v));
  const none = () => undefined;
  const valueOf = (type) => (r) => (r.type === type ? r.value : undefined);

  // pier addition: PiChamber's form. Fields are brought to the wire's shape here (known keys only, scalar
  // initial values as text) so a wrong JS type is this call's TypeError, not a protocol violation; what a form
  // may contain (ids, labels, options, limits) the host checks, refusing a bad one with its reason.
  const FORM_TYPES = ["text", "textarea", "number", "select", "checkbox"];
  const formFields = (fields) => {
    if (!Array.isArray(fields)) throw new TypeError("ctx.ui.form: fields must be an array");
    if (fields.length > 12) throw new Error("ctx.ui.form: a form has at most 12 fields (got " + fields.length + ")");
    return fields.map((f, i) => {
      const where = "ctx.ui.form: field " + (i + 1);
      if (!f || typeof f !== "object" || Array.isArray(f)) throw new TypeError(where + " must be an object");
      const type = f.type === undefined || f.type === null ? "text" : f.type;
      if (typeof f.id !== "string") throw new TypeError(where + " needs a string id");
      if (typeof f.label !== "string") throw new TypeError(where + " needs a string label");
      if (!FORM_TYPES.includes(type)) throw new TypeError(where + " has unknown type " + JSON.stringify(type) + " (expected " + FORM_TYPES.join(", ") + ")");
      const out = { id: f.id, label: f.label, type };
      if (f.required === true) out.required = true;
      if (typeof f.placeholder === "string") out.placeholder = f.placeholder;
      if (f.options !== undefined) {
        if (!Array.isArray(f.options) || !f.options.every((o) => typeof o === "string")) throw new TypeError(where + ": options must be an array of strings");
        out.options = f.options.slice();
      }
      if (typeof f.initial === "string" || typeof f.initial === "number" || typeof f.initial === "boolean") out.initial = String(f.initial);
      for (const key of ["min", "max"]) {
        if (f[key] === undefined) continue;
        if (typeof f[key] !== "number" || !Number.isFinite(f[key])) throw new TypeError(where + ": " + key + " must be a finite number");
        out[key] = f[key];
      }
      return out;
    });
  };

  const uiApi = {
    select: (title, options, opts) => ui({ type: "select", title, options: options.map((o) => typeof o === "string" ? { value: o, label: o } : o) }, valueOf("selected"), opts && opts.timeout),
    confirm: (title, message, opts) => ui({ type: "confirm", title, message }, (r) => r.type === "confirmed" && r.confirmed === true, opts && opts.timeout),
    input: (title, placeholder, opts) => ui(placeholder === undefined ? { type: "input", title } : { type: "input", title, placeholder }, valueOf("input"), opts && opts.timeout),
    editor: (title, prefill) => ui(prefill === undefined ? { type: "editor", title } : { type: "editor", title, prefill }, valueOf("edited")),
    form: (title, fields, opts) => { try { return ui({ type: "form", title, fields: formFields(fields) }, (r) => (r.type === "form" ? r.values : undefined), opts && opts.timeout); } catch (error) { return Promise.reject(error); } },
    notify: (message, level) => ui({ type: "notify", message, level: level || "info" }, none),
    setStatus: (key, text) => ui(text === undefined ? { type: "status", key } : { type: "status", key, text }, none),
    setWidget: (key, lines, options) => {
      if (typeof lines === "function") throw new TypeError("QuickJS extensions can only set string[] widgets (TUI component factories are not supported)");
      const placement = options && (options.placement === "belowEditor" || options.placement === "below_editor") ? "below_editor" : "above_editor";
      return ui(lines === undefined ? { type: "widget", key, placement } : { type: "widget", key, lines, placement }, none);
    },
    setTitle: (title) => ui({ type: "title", title }, none),
    setEditorText: (text) => ui({ type: "set_editor_text", text }, none),
    getEditorText: () => ui({ type: "get_editor_text" }, (r) => r.value),
    getAllThemes: () => ui({ type: "get_all_themes" }, (r) => r.themes),
    getTheme: (name) => ui({ type: "get_theme", name }, (r) => r.theme),
    setTheme: (theme) => ui({ type: "set_theme", name: typeof theme === "string" ? theme : theme.name }, (r) => ({ success: r.success, error: r.error })),
    getToolsExpanded: () => ui({ type: "get_tools_expanded" }, (r) => r.expanded),
    custom: () => { throw new Error("ctx.ui.custom (TUI components) is not supported in QuickJS extensions"); },
  };

  const pick = (o, keys) => { const out = {}; for (const k of keys) if (o && o[k] !== undefined) out[k] = o[k]; return out; };
  const sessionActions = {
    sendMessage: (message, options) => act({ kind: "send_message", message: { customType: message.customType, content: message.content, display: message.display !== false, ...(message.details !== undefined ? { details: message.details } : {}) }, delivery: (options && options.deliverAs) || "steer", triggerTurn: !!(options && options.triggerTurn) }, none),
    sendUserMessage: (content, options) => act({ kind: "send_user_message", content, delivery: (options && options.deliverAs) || "steer" }, none),
    appendEntry: (customType, data) => act(data === undefined ? { kind: "append_entry", customType } : { kind: "append_entry", customType, data }, none),
    setSessionName: (name) => act({ kind: "set_session_name", name }, none),
    setLabel: (entryId, label) => act(label === undefined ? { kind: "set_label", entryId } : { kind: "set_label", entryId, label }, none),
    setActiveTools: (toolNames) => act({ kind: "set_active_tools", toolNames }, none),
    setModel: (model) => act({ kind: "set_model", model }),
    setThinkingLevel: (level) => act({ kind: "set_thinking_level", level }, none),
    fetchSystemPrompt: () => act({ kind: "get_system_prompt" }),
    fetchThinkingLevel: () => act({ kind: "get_thinking_level" }),
    getSessionBranch: () => act({ kind: "get_session_branch" }),
  };

  const snapshot = () => state.snapshot || {};
  const listeners = new Map();
  const pi = {
    registerTool(tool) { register("tool", tool.name, () => { tools.set(tool.name, tool); return { kind: "tool", tool: { name: tool.name, label: tool.label || tool.name, description: tool.description, parameters: tool.parameters || { type: "object" }, ...(tool.promptGuidelines ? { promptGuidelines: tool.promptGuidelines } : {}) } }; }); },
    registerCommand(name, options) { register("command", name, () => { commands.set(name, options); return { kind: "command", command: options.description ? { name, description: options.description } : { name } }; }); },
    registerShortcut(key, options) { register("shortcut", key, () => { shortcuts.set(key, options); return { kind: "shortcut", shortcut: options.description ? { key, description: options.description } : { key } }; }); },
    registerFlag(name, options) { register("flag", name, () => { flags.set(name, options); return { kind: "flag", flag: { name, type: options.type, ...(options.description ? { description: options.description } : {}), ...(options.default !== undefined ? { default: options.default } : {}) } }; }); },
    registerMessageRenderer() { throw new Error("registerMessageRenderer is not supported in QuickJS extensions (renderers cannot cross the protocol)"); },
    registerProvider() { throw new Error("registerProvider is not supported by pier's QuickJS runtime yet"); },
    on(event, handler) {
      if (state.phase !== "loading") throw new Error("pi.on is only allowed while the extension loads");
      if (!hooks.has(event)) { hooks.set(event, []); frame({ type: "register", registration: { kind: "event_hook", hook: { event } } }); }
      hooks.get(event).push(handler);
    },
    events: {
      on(name, fn) { const list = listeners.get(name) || []; list.push(fn); listeners.set(name, list); return () => listeners.set(name, (listeners.get(name) || []).filter((f) => f !== fn)); },
      emit(name, data) { for (const fn of listeners.get(name) || []) fn(data); },
    },
    getFlag: (name) => { const v = snapshot().flagValues; return v && name in v ? v[name] : flags.has(name) ? flags.get(name).default : undefined; },
    getSessionName: () => snapshot().sessionName,
    getThinkingLevel: () => snapshot().thinkingLevel,
    getActiveTools: () => snapshot().activeTools || [],
    getAllTools: () => (snapshot().allTools || []).map((name) => ({ name })),
    getCommands: () => snapshot().commands || [],
    ...sessionActions,
  };

  function register(kind, name, build) {
    if (state.phase !== "loading") throw new Error("registering a " + kind + " is only allowed while the extension loads (in the factory)");
    frame({ type: "register", registration: build() });
  }

  function context(invocation) {
    const s = invocation.context || {};
    const hello = state.hello;
    return {
      cwd: hello.cwd, mode: hello.mode, projectTrusted: hello.projectTrusted,
      hasUI: hello.mode === "tui" || hello.mode === "rpc",
      signal: invocation.signal, ui: uiApi,
      sessionName: s.sessionName, sessionId: s.sessionId, sessionFile: s.sessionFile,
      model: s.model, thinkingLevel: s.thinkingLevel,
      isIdle: () => s.isIdle, hasPendingMessages: () => s.hasPendingMessages,
      getContextUsage: () => s.contextUsage, getSystemPrompt: () => s.systemPrompt,
      abort: () => act({ kind: "abort" }, none), shutdown: () => act({ kind: "shutdown" }, none),
      compact: (o) => act(o && o.customInstructions ? { kind: "compact", customInstructions: o.customInstructions } : { kind: "compact" }, none),
      reload: () => act({ kind: "reload" }, none), waitForIdle: () => act({ kind: "wait_for_idle" }, none),
      newSession: (o) => act(o && o.parentSession !== undefined ? { kind: "new_session", parentSession: o.parentSession } : { kind: "new_session" }),
      fork: (entryId, o) => act(o && o.position !== undefined ? { kind: "fork", entryId, position: o.position } : { kind: "fork", entryId }),
      navigateTree: (targetId, o) => act({ kind: "navigate_tree", targetId, ...pick(o, ["summarize", "customInstructions", "replaceInstructions", "label"]) }),
      switchSession: (sessionPath) => act({ kind: "switch_session", sessionPath }),
    };
  }

  async function runHooks(name, data, ctx) {
    let answer = null;
    for (const handler of hooks.get(name) || []) {
      const result = await handler(data, ctx);
      if (result !== undefined && result !== null) answer = result;
    }
    return answer;
  }

  async function invoke(id, req) {
    const inv = req.invocation;
    const invocation = { context: req.context, signal: new Signal() };
    if (req.context) state.snapshot = req.context;
    running.set(id, invocation);
    const ctx = context(invocation);
    let result;
    try {
      let value;
      if (inv.kind === "tool") {
        const tool = tools.get(inv.name);
        if (!tool) throw new Error("no tool " + inv.name);
        value = await tool.execute(inv.callId, inv.arguments, invocation.signal, (partial) => frame({ type: "update", id, value: partial }), ctx);
        if (value === undefined) value = { content: [] };
      } else if (inv.kind === "command") {
        const command = commands.get(inv.name);
        if (!command) throw new Error("no command " + inv.name);
        value = await command.handler(inv.arguments, ctx);
      } else if (inv.kind === "shortcut") {
        value = await shortcuts.get(inv.key).handler(ctx);
      } else if (inv.kind === "event") {
        value = await runHooks(inv.event.name, inv.event.data, ctx);
      } else {
        result = failure("unsupported_request", "QuickJS extensions do not serve " + inv.kind + " invocations");
      }
      if (!result) result = invocation.signal.aborted ? failure("cancelled", "the invocation was cancelled") : success(value);
    } catch (error) {
      result = invocation.signal.aborted ? failure("cancelled", "the invocation was cancelled") : failure("extension_error", errorText(error));
    }
    if (running.get(id) === invocation) { running.delete(id); respond(id, result); }
  }

  async function load(id) {
    state.phase = "loading";
    state.loadId = id;
    try {
      await state.factory(pi);
      state.phase = "loaded";
      respond(id, success(null));
    } catch (error) {
      respond(id, failure("load_failed", errorText(error)));
    }
  }

  globalThis.__pier_receive = (json) => {
    const f = JSON.parse(json);
    if (f.type === "hello") {
      state.hello = f;
      const m = globalThis.__pier_manifest;
      frame({ type: "hello", protocolVersion: 1, manifest: m });
    } else if (f.type === "request") {
      if (f.request.kind === "load") load(f.id);
      else if (f.request.kind === "initialize") { state.phase = "live"; respond(f.id, success(null)); }
      else invoke(f.id, f.request);
    } else if (f.type === "response") {
      const waiting = pendingRequests.get(f.id);
      pendingRequests.delete(f.id);
      if (!waiting) return;
      if (f.result.status === "success") waiting.resolve(f.result.value);
      else { const e = new Error(f.result.error.message); e.code = f.result.error.code; waiting.reject(e); }
    } else if (f.type === "cancel") {
      const invocation = running.get(f.id);
      if (!invocation) return;
      running.delete(f.id);
      invocation.signal.abort(new Error("cancelled"));
      respond(f.id, failure("cancelled", "the invocation was cancelled"));
    }
  };
  globalThis.__pier_setFactory = (factory) => {
    if (typeof factory !== "function") throw new TypeError("the entry must default-export a factory function: export default function (pi) { ... }");
    state.factory = factory;
  };
})();
`;
