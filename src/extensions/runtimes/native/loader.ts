/**
 * Loading one plugin library: dlopen it, resolve `rpi_plugin_register`, hand it pier's `PluginApi` and
 * collect what it registers. The struct is 256 zero-filled bytes (abi_version 4, struct_size 256) that stay
 * allocated for the life of the process: plugins may keep the pointer. Registrars only accept calls while
 * `register` runs (rpi's rule: afterwards they return -1).
 */
import {
	ABI_VERSION,
	callback,
	DeclareFn,
	DispatchEventFn,
	decodeFn,
	EventHandlerFn,
	FreeStringFn,
	HOST_FREE,
	hostString,
	koffi,
	malloc,
	PLUGIN_API_BYTES,
	type RawString,
	REGISTER_PANIC_STATUS,
	REGISTER_SYMBOL,
	RegisterCommandFn,
	RegisterEventHandlerFn,
	RegisterHandlerFn,
	RegisterOAuthFn,
	RegisterPairFn,
	RegisterProviderFn,
	RegisterRendererFn,
	RegisterToolFn,
	RegisterToolWithWakeFn,
	ResourcesDiscoverFn,
	RuntimeActionFn,
	readText,
	SLOT,
	StableToolSchema,
	StbString,
	StringHandlerFn,
} from "./abi.js";
import {
	type Declaration,
	emptyRegistry,
	type FreeFn,
	type NativeHandler,
	type NativeNamed,
	type PluginRegistry,
	type StringHandler,
} from "./registry.js";
import { bindTool } from "./tool-ffi.js";

/** A runtime action as the plugin host answers it: the code and the JSON text for `*out`. */
export type ActionSink = (id: number, argsJson: string) => { code: number; out: string };

export class PluginLoadError extends Error {
	override name = "PluginLoadError";
}

/** The registry being filled by the `register` call in progress; registrars refuse calls outside it. */
let current: PluginRegistry | undefined;
let actionSink: ActionSink = () => ({ code: -1, out: "" });
/** Every registered callback the API points at: kept for the life of the process, as the API is. */
const keep: unknown[] = [];

let declared: (declaration: Declaration) => void = () => {};

/**
 * Told of the plugin's `declare` the moment it is made, inside `register`: an ownsStdio plugin may start a
 * thread reading stdin right after, so it must have pier's stdin by then.
 */
export function onDeclare(listener: (declaration: Declaration) => void): void {
	declared = listener;
}

/** Where the plugin's `runtime_action` calls go (the plugin host installs it once it can answer). */
export function setActionSink(sink: ActionSink): void {
	actionSink = sink;
}

const freeOf = (ptr: unknown): FreeFn | undefined => decodeFn<FreeFn>(ptr, FreeStringFn) ?? undefined;

/** Copies a plugin string out and reclaims it with the plugin's own deallocator. */
export function takeString(s: RawString, free: FreeFn | undefined): string {
	const text = readText(s);
	if (s.ptr !== null && free) free(s);
	return text;
}

function registrar<A extends unknown[]>(name: string, body: (registry: PluginRegistry, ...args: A) => number) {
	return (...args: A): number => {
		if (!current) return -1;
		try {
			return body(current, ...args);
		} catch (error) {
			current.problems.push(`${name}: ${(error as Error).message}`);
			return 1;
		}
	};
}

function noteFree(registry: PluginRegistry, free: FreeFn | undefined): void {
	registry.firstFree ??= free;
}

function tool(registry: PluginRegistry, args: unknown[], setWaker: unknown): number {
	const [schemaPtr, execute, poll, cancel, destroy, pluginFree] = args;
	if (schemaPtr === null) return 1;
	const free = freeOf(pluginFree);
	const schema = koffi.decode(schemaPtr, StableToolSchema) as Record<"name" | "description" | "parameters", RawString>;
	// The host copies the schema out and frees all three strings here; the plugin must not free them again.
	const name = takeString(schema.name, free);
	const description = takeString(schema.description, free);
	const parametersText = takeString(schema.parameters, free);
	const present = (ptr: unknown) => ptr !== null && ptr !== undefined && koffi.address(ptr) !== 0n;
	if (name === "") throw new Error("a tool needs a non-empty name");
	if (![execute, poll, cancel, destroy].every(present) || !free) {
		throw new Error(`tool "${name}" needs execute, poll, cancel, destroy and plugin_free_string`);
	}
	let parameters: Record<string, unknown> = { type: "object", properties: {} };
	try {
		const parsed = JSON.parse(parametersText || "{}");
		if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) parameters = parsed;
	} catch {
		registry.problems.push(`tool "${name}": parameters are not JSON; registered with an empty object schema`);
	}
	const waker = setWaker !== undefined && present(setWaker) ? { setWaker } : {};
	noteFree(registry, free);
	registry.tools.push({
		name,
		description,
		parameters,
		fns: bindTool({ execute, poll, cancel, destroy, free: pluginFree, ...waker }),
	});
	return 0;
}

function stringHandler(fn: unknown, free: unknown, userData: unknown): NativeHandler | undefined {
	const call = decodeFn<StringHandler>(fn, StringHandlerFn);
	return call ? { call, free: freeOf(free), userData } : undefined;
}

function renderer(list: (r: PluginRegistry) => NativeNamed[]) {
	return (registry: PluginRegistry, name: RawString, fn: unknown, free: unknown, userData: unknown): number => {
		const handler = stringHandler(fn, free, userData);
		if (!handler) return 1;
		noteFree(registry, handler.free);
		list(registry).push({ name: readText(name), ...handler });
		return 0;
	};
}

/** `declare`'s JSON: unknown keys are ignored, a wrong type keeps that default (native-abi.md §2.8). */
export function parseDeclaration(json: string): Declaration {
	const value = JSON.parse(json) as Record<string, unknown>;
	if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("declare needs an object");
	const declaration: Declaration = { priority: 100, platforms: [], ownsStdio: false };
	if (Number.isInteger(value.priority)) declaration.priority = value.priority as number;
	if (Array.isArray(value.platforms)) declaration.platforms = value.platforms.filter((p) => typeof p === "string");
	if (typeof value.ownsStdio === "boolean") declaration.ownsStdio = value.ownsStdio;
	return declaration;
}

/** The slot → host callback table. Built once per process: there is one plugin per plugin host. */
function slots(): Array<[number, unknown]> {
	const cb = (fn: (...args: never[]) => unknown, proto: Parameters<typeof callback>[1]) => {
		const pointer = callback(fn, proto);
		keep.push(pointer);
		return pointer;
	};
	const runtimeAction = (id: number, args: RawString, out: unknown, _userData: unknown): number => {
		let answer: { code: number; out: string };
		try {
			answer = actionSink(id, readText(args));
		} catch (error) {
			answer = { code: 1, out: JSON.stringify({ error: `runtime_action failed: ${(error as Error).message}` }) };
		}
		if (out !== null && answer.out !== "") koffi.encode(out, 0, StbString, hostString(answer.out));
		return answer.code;
	};
	return [
		[
			SLOT.registerTool,
			cb(
				registrar("register_tool", (r, ...a: unknown[]) => tool(r, a, undefined)),
				RegisterToolFn,
			),
		],
		[
			SLOT.registerToolWithWake,
			cb(
				registrar("register_tool_with_wake", (r, ...a: unknown[]) => tool(r, a.slice(0, 6), a[6] ?? null)),
				RegisterToolWithWakeFn,
			),
		],
		[
			SLOT.registerCommand,
			cb(
				registrar("register_command", (r, name: RawString, description: RawString, handler: unknown) => {
					const call = decodeFn<StringHandler>(handler, StringHandlerFn);
					if (!call) return 1;
					r.commands.push({
						name: readText(name),
						description: readText(description),
						call,
						free: undefined,
						userData: null,
					});
					return 0;
				}),
				RegisterCommandFn,
			),
		],
		[
			SLOT.registerShortcut,
			cb(
				registrar("register_shortcut", (r, key: RawString, description: RawString) => {
					r.shortcuts.push({ key: readText(key), description: readText(description) });
					return 0;
				}),
				RegisterPairFn,
			),
		],
		[
			SLOT.registerFlag,
			cb(
				registrar("register_flag", (r, name: RawString, description: RawString) => {
					r.flags.push({ name: readText(name), description: readText(description) });
					return 0;
				}),
				RegisterPairFn,
			),
		],
		[
			SLOT.registerProvider,
			cb(
				registrar(
					"register_provider",
					(r, id: RawString, baseUrl: RawString, apiStyle: RawString, fn: unknown, free: unknown, ud: unknown) => {
						const handler = stringHandler(fn, free, ud);
						if (!handler) return 1;
						noteFree(r, handler.free);
						r.providers.push({
							id: readText(id),
							baseUrl: readText(baseUrl),
							apiStyle: readText(apiStyle),
							...handler,
						});
						return 0;
					},
				),
				RegisterProviderFn,
			),
		],
		[
			SLOT.registerMessageRenderer,
			cb(
				registrar(
					"register_message_renderer",
					renderer((r) => r.messageRenderers),
				),
				RegisterRendererFn,
			),
		],
		[
			SLOT.registerMarkdownTransformer,
			cb(
				registrar(
					"register_markdown_transformer",
					renderer((r) => r.markdownTransformers),
				),
				RegisterRendererFn,
			),
		],
		[
			SLOT.registerEntryRenderer,
			cb(
				registrar(
					"register_entry_renderer",
					renderer((r) => r.entryRenderers),
				),
				RegisterRendererFn,
			),
		],
		[
			SLOT.registerEventHandler,
			cb(
				registrar("register_event_handler", (r, tag: number, handler: unknown, ud: unknown) => {
					const call = decodeFn<(event: unknown, ud: unknown) => number>(handler, EventHandlerFn);
					if (!call) return 1;
					if (tag > 36) throw new Error(`unknown event tag ${tag} (pier knows 0–36)`);
					r.events.push({ tag, call, userData: ud });
					return 0;
				}),
				RegisterEventHandlerFn,
			),
		],
		[
			SLOT.registerResourcesDiscover,
			cb(
				registrar("register_resources_discover", (r, fn: unknown, free: unknown, ud: unknown) => {
					const call = decodeFn<PluginRegistry["discover"][number]["call"]>(fn, ResourcesDiscoverFn);
					if (!call) return 1;
					const freeFn = freeOf(free);
					noteFree(r, freeFn);
					r.discover.push({ call, free: freeFn, userData: ud });
					return 0;
				}),
				RegisterHandlerFn,
			),
		],
		[SLOT.runtimeAction, cb(runtimeAction, RuntimeActionFn)],
		[
			SLOT.dispatchEvent,
			// A plugin's own emit: pier has no bus for it, so it is noted on stderr and its strings reclaimed.
			cb((event: { tag: number; a: RawString; b: RawString; c: RawString }) => {
				process.stderr.write(`[native] plugin dispatch_event(tag ${event.tag}) is not delivered anywhere by pier\n`);
				return 0;
			}, DispatchEventFn),
		],
		[
			SLOT.declare,
			cb(
				registrar("declare", (r, json: RawString) => {
					r.declaration = parseDeclaration(readText(json));
					declared(r.declaration);
					return 0;
				}),
				DeclareFn,
			),
		],
		[
			SLOT.registerBeforeAgentStart,
			cb(
				registrar("register_before_agent_start", (r, fn: unknown, free: unknown, ud: unknown) => {
					const handler = stringHandler(fn, free, ud);
					if (!handler) return 1;
					noteFree(r, handler.free);
					r.beforeAgentStart.push(handler);
					return 0;
				}),
				RegisterHandlerFn,
			),
		],
		[
			SLOT.registerOAuthProvider,
			cb(
				registrar("register_oauth_provider", (r, manifest: RawString, fn: unknown, free: unknown, ud: unknown) => {
					const handler = stringHandler(fn, free, ud);
					if (!handler) return 1;
					r.oauth.push({ manifest: readText(manifest), ...handler });
					return 0;
				}),
				RegisterOAuthFn,
			),
		],
	];
}

let api: unknown;

/** pier's PluginApi, made once and never freed. */
function pluginApi(): unknown {
	if (api) return api;
	const memory = malloc(PLUGIN_API_BYTES);
	if (memory === null) throw new PluginLoadError("out of memory allocating the PluginApi");
	new Uint8Array(koffi.view(memory, PLUGIN_API_BYTES)).fill(0);
	koffi.encode(memory, SLOT.abiVersion, "uint32_t", ABI_VERSION);
	koffi.encode(memory, SLOT.structSize, "uint32_t", PLUGIN_API_BYTES);
	koffi.encode(memory, SLOT.freeString, "void *", HOST_FREE);
	for (const [offset, pointer] of slots()) koffi.encode(memory, offset, "void *", pointer);
	api = memory;
	return memory;
}

/** What a nonzero `rpi_plugin_register` code means, naming the library. */
export function registerFailure(library: string, code: number): string {
	switch (code) {
		case 1:
			return `${library}: ABI version mismatch: the plugin was built for another ABI version than ${ABI_VERSION} (rebuild it against rpi-plugin-sdk ABI ${ABI_VERSION})`;
		case 2:
			return `${library}: the plugin refused a null PluginApi (code 2); this is a pier bug, please report it`;
		case 3:
			return `${library}: struct_size too small: the plugin expects a larger PluginApi than pier's (${PLUGIN_API_BYTES} bytes); it was built against a newer rpi-plugin-sdk than pier supports`;
		case REGISTER_PANIC_STATUS:
			return `${library}: the plugin panicked during registration (code 70) and was skipped; its stderr says why`;
		default:
			return `${library}: register returned nonzero code ${code}`;
	}
}

export interface LoadedPlugin {
	library: string;
	registry: PluginRegistry;
	/** Kept so the library stays mapped for the life of the process. */
	handle: unknown;
}

/** dlopen + register; throws PluginLoadError with a message naming the library. */
export function loadPlugin(library: string): LoadedPlugin {
	let handle: ReturnType<typeof koffi.load>;
	try {
		handle = koffi.load(library);
	} catch (error) {
		throw new PluginLoadError(`could not open library ${library}: ${(error as Error).message}`);
	}
	let register: (api: unknown) => number;
	try {
		register = handle.func(REGISTER_SYMBOL, "int32_t", ["void *"]) as (api: unknown) => number;
	} catch (error) {
		throw new PluginLoadError(`\`${REGISTER_SYMBOL}\` was not found in ${library}: ${(error as Error).message}`);
	}
	const registry = emptyRegistry();
	const memory = pluginApi();
	current = registry;
	let code: number;
	try {
		code = register(memory);
	} finally {
		current = undefined;
	}
	if (code !== 0) throw new PluginLoadError(registerFailure(library, code));
	return { library, registry, handle };
}
