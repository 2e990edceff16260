/**
 * Registrations: what `pi.register*` / `pi.on` send during the load phase, validated in the guest with rpi's
 * messages (a bad registration throws in the factory, so the load fails naming it), and what the invocations
 * later find. Each registration is sent at once, so the host sees them in the order they were made.
 */
import { HOOKS } from "./hook-table.mjs";

/** Tool fields pi has and protocol v1 cannot carry (functions of the TUI or of the model's sampling): refused. */
export const UNSUPPORTED_TOOL_FIELDS = Object.freeze([
	"constrainedSampling",
	"renderShell",
	"prepareArguments",
	"renderCall",
	"renderResult",
]);
export const TOOL_CAPABILITIES = Object.freeze(["read", "write", "exec"]);
export const TOOL_EXECUTION_MODES = Object.freeze(["default", "sequential", "parallel"]);

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
/** rpi's rule for labels and titles: 1–256 characters, none of them a control character. */
function printable(text) {
	if (typeof text !== "string" || text.length === 0 || text.length > 256) return false;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (code < 0x20 || code === 0x7f) return false;
	}
	return true;
}

/** rpi's identifier grammar for provider and overlay ids: 1–128 bytes of [A-Za-z0-9_.-]. */
export function identifierProblem(value, field) {
	if (typeof value !== "string" || value.length === 0) return `${field} must not be empty`;
	if (value.length > 128) return `${field} exceeds 128 bytes`;
	if (!/^[A-Za-z0-9_.-]+$/.test(value)) return `${field} ${JSON.stringify(value)} contains unsupported characters`;
	return undefined;
}

function checkIdentifier(value, field) {
	const problem = identifierProblem(value, field);
	if (problem) throw new Error(problem);
}

/** JSON round trip, so TypeBox schemas lose their symbol keys exactly as on the wire. */
const plain = (value) => JSON.parse(JSON.stringify(value));

/**
 * pier's additions to a provider registration, in either form: `baseUrl`, and `models` (ids or ProviderModel
 * objects) for pi's model list; without models the host offers `default` and whatever `--model` names.
 */
function pierProviderFields(config) {
	const models = config.models?.map((m) => (typeof m === "string" ? { id: m } : m));
	return {
		...(config.baseUrl !== undefined ? { baseUrl: config.baseUrl } : {}),
		...(models !== undefined ? { models: plain(models) } : {}),
	};
}

export class Registry {
	/** `guest` gives the phase, the manifest, the runtime's name and `send`. */
	constructor(guest) {
		this.guest = guest;
		this.tools = new Map();
		this.commands = new Map();
		this.shortcuts = new Map();
		this.flags = new Map();
		this.hooks = new Map();
		this.providers = new Map();
		this.overlays = new Map();
		this.renderers = new Map();
		/** pier addition, for runtimes built on the kit (the native plugin host): entry renderers by type. */
		this.entryRenderers = new Map();
		/** pier addition: the one markdown transformer, `(markdown, context) => string`. */
		this.markdownTransformer = undefined;
	}

	/** Registrations exist only while the host collects them: between its `load` request and our answer. */
	assertLoading(noun, capability) {
		const phase = this.guest.phase;
		if (phase !== "loading") {
			throw new Error(
				`${noun} registration is only allowed during the load phase (in the factory), not in the ${phase} phase`,
			);
		}
		if (capability && !this.guest.manifest.capabilities.includes(capability)) {
			throw new Error(
				`${noun} registration requires the ${capability} capability (add it to the manifest's capabilities)`,
			);
		}
	}

	send(registration) {
		this.guest.send({ type: "register", registration });
	}

	registerTool(tool) {
		this.assertLoading("tool", "tools");
		if (!isObject(tool)) throw new TypeError("registerTool requires a tool object");
		for (const field of UNSUPPORTED_TOOL_FIELDS) {
			if (tool[field] !== undefined) {
				throw new Error(`registerTool.${field} is unavailable in the ${this.guest.runtime} runtime`);
			}
		}
		if (typeof tool.name !== "string" || tool.name === "") throw new TypeError("registerTool requires a name");
		if (typeof tool.execute !== "function") throw new TypeError("registerTool requires an execute function");
		if (this.tools.has(tool.name)) throw new Error(`duplicate tool ${tool.name}`);
		const capability = tool.capability ?? "exec";
		if (!TOOL_CAPABILITIES.includes(capability)) {
			throw new Error(`registerTool capability must be read, write, or exec, got ${capability}`);
		}
		const executionMode = tool.executionMode ?? "default";
		if (!TOOL_EXECUTION_MODES.includes(executionMode)) {
			throw new Error(
				`registerTool executionMode must be "default", "sequential" or "parallel", got ${JSON.stringify(executionMode)}`,
			);
		}
		const descriptor = {
			name: tool.name,
			label: tool.label ?? tool.name,
			description: tool.description ?? tool.label ?? tool.name,
			parameters: plain(tool.parameters ?? { type: "object", properties: {} }),
			capability,
			executionMode,
			...(tool.promptGuidelines !== undefined ? { promptGuidelines: tool.promptGuidelines.map(String) } : {}),
		};
		this.send({ kind: "tool", tool: descriptor });
		this.tools.set(tool.name, tool);
	}

	registerCommand(name, options) {
		this.registerHandler("command", "registerCommand", this.commands, { name }, options);
	}

	registerShortcut(key, options) {
		this.registerHandler("shortcut", "registerShortcut", this.shortcuts, { key }, options);
	}

	/** A command or a shortcut: `{handler, description?}` under its name (`{name}` or `{key}`), behind `commands`. */
	registerHandler(kind, method, map, named, options) {
		this.assertLoading(kind, "commands");
		if (typeof options?.handler !== "function") throw new TypeError(`${method} requires a handler function`);
		const name = Object.values(named)[0];
		if (map.has(name)) throw new Error(`duplicate ${kind} ${name}`);
		const descriptor = { ...named, ...(options.description !== undefined ? { description: options.description } : {}) };
		this.send({ kind, [kind]: descriptor });
		map.set(name, options);
	}

	registerFlag(name, options = {}) {
		this.assertLoading("flag", "commands");
		if (this.flags.has(name)) throw new Error(`duplicate flag ${name}`);
		const flag = {
			name,
			type: options.type,
			...(options.description !== undefined ? { description: options.description } : {}),
			...(options.default !== undefined ? { default: options.default } : {}),
		};
		this.send({ kind: "flag", flag });
		this.flags.set(name, flag);
	}

	/**
	 * Every handler runs (hook-table.mjs reduces them); the host hears of the event name once. Returns pi 1.6's
	 * unsubscribe: that registration (a wrapper, so the same function registered twice is two) stops being
	 * called. The host is not told: it still sends the event, and with no handler left the answer is null.
	 */
	on(event, handler) {
		this.assertLoading("event", "event_hooks");
		if (typeof handler !== "function") throw new TypeError("pi.on requires a handler function");
		if (!Object.hasOwn(HOOKS, event)) throw new Error(`unsupported extension event ${event}`);
		const registered = (...args) => handler(...args);
		const handlers = this.hooks.get(event);
		if (handlers) handlers.push(registered);
		else {
			this.send({ kind: "event_hook", hook: { event } });
			this.hooks.set(event, [registered]);
		}
		return () => {
			const list = this.hooks.get(event);
			const index = list ? list.indexOf(registered) : -1;
			if (index !== -1) list.splice(index, 1);
		};
	}

	/**
	 * Two forms. rpi's: `registerProvider({id, label?, api?, capabilities?, stream})`, where `stream(sessionId,
	 * messages, options)` yields compact stream events. pier's: `registerProvider(id, {complete, models?, …})`,
	 * where `complete(request, ctx)` answers a turn with a whole assistant message.
	 */
	registerProvider(idOrOptions, config) {
		this.assertLoading("provider", "provider");
		if (typeof idOrOptions === "string") return this.registerCompleteProvider(idOrOptions, config);
		const options = idOrOptions;
		if (!isObject(options)) throw new TypeError("registerProvider requires an options object");
		checkIdentifier(options.id, "provider id");
		if (typeof options.stream !== "function") throw new TypeError("registerProvider requires a stream function");
		const api = options.api ?? options.id;
		checkIdentifier(api, "provider api");
		if (options.label !== undefined && !printable(options.label)) {
			throw new Error("provider label must be 1-256 printable characters");
		}
		const capabilities = options.capabilities ?? [];
		for (const capability of capabilities) checkIdentifier(capability, "provider capability");
		if (this.providers.has(options.id)) throw new Error(`duplicate provider ${options.id}`);
		this.send({
			kind: "provider",
			provider: {
				id: options.id,
				...(options.label !== undefined ? { label: options.label } : {}),
				api,
				capabilities: capabilities.slice(),
				...pierProviderFields(options),
			},
		});
		this.providers.set(options.id, options);
	}

	registerCompleteProvider(id, config) {
		checkIdentifier(id, "provider id");
		if (typeof config?.complete !== "function") throw new TypeError("registerProvider requires a complete function");
		if (this.providers.has(id)) throw new Error(`duplicate provider ${id}`);
		this.send({
			kind: "provider",
			provider: {
				id,
				api: config.api ?? id,
				...(config.label !== undefined ? { label: config.label } : {}),
				...(config.capabilities !== undefined ? { capabilities: config.capabilities } : {}),
				...pierProviderFields(config),
			},
		});
		this.providers.set(id, config);
	}

	unregisterProvider(id) {
		if (this.guest.phase !== "loading") {
			throw new Error(
				`provider unregistration is only allowed during the load phase (in the factory), not in the ${this.guest.phase} phase`,
			);
		}
		if (!this.providers.has(id)) throw new Error(`cannot unregister unknown provider ${id}`);
		this.providers.delete(id);
		this.guest.send({ type: "unregister_provider", id });
	}

	registerOverlay(options) {
		this.assertLoading("overlay", "overlays");
		if (!isObject(options)) throw new TypeError("registerOverlay requires an options object");
		checkIdentifier(options.id, "overlay id");
		const title = options.title ?? options.id;
		if (!printable(title)) throw new Error("overlay title must be 1-256 printable characters");
		if (typeof options.render !== "function") throw new TypeError("registerOverlay requires a render function");
		for (const field of ["onSubmit", "onKey"]) {
			if (options[field] !== undefined && typeof options[field] !== "function") {
				throw new TypeError(`registerOverlay ${field} must be a function`);
			}
		}
		let input;
		if (options.input !== undefined && options.input !== null) {
			const { placeholder, multiline } = options.input;
			if (placeholder !== undefined && !printable(placeholder)) {
				throw new Error("overlay input placeholder must be 1-256 printable characters");
			}
			input = { ...(placeholder !== undefined ? { placeholder } : {}), multiline: multiline === true };
		}
		if (this.overlays.has(options.id)) throw new Error(`duplicate overlay ${options.id}`);
		this.send({ kind: "overlay", overlay: { id: options.id, title, ...(input ? { input } : {}) } });
		this.overlays.set(options.id, options);
	}

	/** How the host renders a custom message of `messageType` (process extensions; `render_message`). */
	registerMessageRenderer(messageType, render) {
		if (!this.guest.rendersMessages) {
			throw new Error(
				`registerMessageRenderer is unavailable in the ${this.guest.runtime} runtime (a renderer cannot leave its sandbox)`,
			);
		}
		this.assertLoading("message renderer", "message_renderers");
		if (typeof render !== "function") throw new TypeError("registerMessageRenderer requires a render function");
		if (this.renderers.has(messageType)) throw new Error(`duplicate message renderer ${messageType}`);
		this.send({ kind: "message_renderer", renderer: { messageType } });
		this.renderers.set(messageType, render);
	}

	/** pier addition (runtimes built on the kit): how the host draws custom entries of `entryType` (`render_entry`). */
	registerEntryRenderer(entryType, render) {
		if (!this.guest.rendersMessages)
			throw new Error(`entry renderers are unavailable in the ${this.guest.runtime} runtime`);
		this.assertLoading("entry renderer", "message_renderers");
		if (typeof render !== "function") throw new TypeError("registerEntryRenderer requires a render function");
		if (this.entryRenderers.has(entryType)) throw new Error(`duplicate entry renderer ${entryType}`);
		this.send({ kind: "entry_renderer", renderer: { entryType } });
		this.entryRenderers.set(entryType, render);
	}

	/** pier addition (runtimes built on the kit): the extension's markdown transformer and its surfaces. */
	registerMarkdownTransformer(transform, messageTypes) {
		if (!this.guest.rendersMessages) {
			throw new Error(`markdown transformers are unavailable in the ${this.guest.runtime} runtime`);
		}
		this.assertLoading("markdown transformer", "message_renderers");
		if (typeof transform !== "function") throw new TypeError("registerMarkdownTransformer requires a function");
		if (this.markdownTransformer) throw new Error("an extension registers at most one markdown transformer");
		this.send({ kind: "markdown_transformer", transformer: { messageTypes: [...messageTypes] } });
		this.markdownTransformer = transform;
	}

	flagDefault(name) {
		return this.flags.get(name)?.default;
	}
}
