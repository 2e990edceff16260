/**
 * The host callbacks a plugin registers through, by `PluginApi` slot: each copies what it is given into the
 * registry being filled (`withRegistry`) and answers rpi's codes (0 accepted, 1 refused, -1 outside
 * `register`: registrars are only valid during that call). A registrar that throws refuses with 1, and
 * its reason is kept as one of the registry's problems.
 */
import {
	callback,
	DeclareFn,
	DispatchEventFn,
	decodeFn,
	EventHandlerFn,
	FreeStringFn,
	hostString,
	koffi,
	type RawString,
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
import type { Declaration, FreeFn, NativeHandler, PluginRegistry, StringHandler } from "./registry.js";
import { bindTool } from "./tool-ffi.js";

/** A runtime action as the plugin host answers it: the code and the JSON text for `*out`. */
export type ActionSink = (id: number, argsJson: string) => { code: number; out: string };

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

/** Runs `register` with the registrars filling `registry`; outside it they answer -1. */
export function withRegistry<T>(registry: PluginRegistry, register: () => T): T {
	current = registry;
	try {
		return register();
	} finally {
		current = undefined;
	}
}

const freeOf = (ptr: unknown): FreeFn | undefined => decodeFn<FreeFn>(ptr, FreeStringFn) ?? undefined;

/** Copies a plugin string out and reclaims it with the plugin's own deallocator. */
export function takeString(s: RawString, free: FreeFn | undefined): string {
	const text = readText(s);
	if (s.ptr !== null && free) free(s);
	return text;
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

type Proto = Parameters<typeof callback>[1];
type Body = (registry: PluginRegistry, ...args: never[]) => number;

/** A registrar in slot `offset`: `body` runs only inside `register`, and a throw refuses with its reason kept. */
function slot(offset: number, name: string, proto: Proto, body: Body): [number, unknown] {
	const registrar = (...args: never[]): number => {
		if (!current) return -1;
		try {
			return body(current, ...args);
		} catch (error) {
			current.problems.push(`${name}: ${(error as Error).message}`);
			return 1;
		}
	};
	const pointer = callback(registrar, proto);
	keep.push(pointer);
	return [offset, pointer];
}

/**
 * A registrar whose last three arguments are a string handler, its deallocator and its user data (providers,
 * renderers, before_agent_start, OAuth): refused without a handler, else filed by `file` with the arguments
 * before them. `noteFree`: its deallocator may stand for the plugin's (a command's output has none).
 */
function handlerSlot<A extends unknown[]>(
	offset: number,
	name: string,
	proto: Proto,
	file: (registry: PluginRegistry, handler: NativeHandler, ...leading: A) => void,
	noteFreeFn = true,
): [number, unknown] {
	return slot(offset, name, proto, ((registry: PluginRegistry, ...args: unknown[]) => {
		const [fn, free, userData] = args.slice(-3);
		const call = decodeFn<StringHandler>(fn, StringHandlerFn);
		if (!call) return 1;
		const handler: NativeHandler = { call, free: freeOf(free), userData };
		if (noteFreeFn) noteFree(registry, handler.free);
		file(registry, handler, ...(args.slice(0, -3) as A));
		return 0;
	}) as Body);
}

/** A `(name, description)` registrar (shortcuts, flags). */
function pairSlot(
	offset: number,
	name: string,
	file: (registry: PluginRegistry, first: string, description: string) => void,
): [number, unknown] {
	return slot(offset, name, RegisterPairFn, ((registry: PluginRegistry, first: RawString, description: RawString) => {
		file(registry, readText(first), readText(description));
		return 0;
	}) as Body);
}

function runtimeAction(id: number, args: RawString, out: unknown, _userData: unknown): number {
	let answer: { code: number; out: string };
	try {
		answer = actionSink(id, readText(args));
	} catch (error) {
		answer = { code: 1, out: JSON.stringify({ error: `runtime_action failed: ${(error as Error).message}` }) };
	}
	if (out !== null && answer.out !== "") koffi.encode(out, 0, StbString, hostString(answer.out));
	return answer.code;
}

/** The slot → host callback table. Built once per process: there is one plugin per plugin host. */
export function registrarSlots(): Array<[number, unknown]> {
	const hostCallback = (offset: number, fn: (...args: never[]) => unknown, proto: Proto): [number, unknown] => {
		const pointer = callback(fn, proto);
		keep.push(pointer);
		return [offset, pointer];
	};
	return [
		slot(SLOT.registerTool, "register_tool", RegisterToolFn, ((r: PluginRegistry, ...a: unknown[]) =>
			tool(r, a, undefined)) as Body),
		slot(SLOT.registerToolWithWake, "register_tool_with_wake", RegisterToolWithWakeFn, ((
			r: PluginRegistry,
			...a: unknown[]
		) => tool(r, a.slice(0, 6), a[6] ?? null)) as Body),
		slot(SLOT.registerCommand, "register_command", RegisterCommandFn, ((
			r: PluginRegistry,
			name: RawString,
			description: RawString,
			handler: unknown,
		) => {
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
		}) as Body),
		pairSlot(SLOT.registerShortcut, "register_shortcut", (r, key, description) =>
			r.shortcuts.push({ key, description }),
		),
		pairSlot(SLOT.registerFlag, "register_flag", (r, name, description) => r.flags.push({ name, description })),
		handlerSlot(
			SLOT.registerProvider,
			"register_provider",
			RegisterProviderFn,
			(r, handler, id: RawString, baseUrl: RawString, apiStyle: RawString) =>
				r.providers.push({ id: readText(id), baseUrl: readText(baseUrl), apiStyle: readText(apiStyle), ...handler }),
		),
		handlerSlot(
			SLOT.registerMessageRenderer,
			"register_message_renderer",
			RegisterRendererFn,
			(r, h, name: RawString) => r.messageRenderers.push({ name: readText(name), ...h }),
		),
		handlerSlot(
			SLOT.registerMarkdownTransformer,
			"register_markdown_transformer",
			RegisterRendererFn,
			(r, h, name: RawString) => r.markdownTransformers.push({ name: readText(name), ...h }),
		),
		handlerSlot(SLOT.registerEntryRenderer, "register_entry_renderer", RegisterRendererFn, (r, h, name: RawString) =>
			r.entryRenderers.push({ name: readText(name), ...h }),
		),
		slot(SLOT.registerEventHandler, "register_event_handler", RegisterEventHandlerFn, ((
			r: PluginRegistry,
			tag: number,
			handler: unknown,
			ud: unknown,
		) => {
			const call = decodeFn<(event: unknown, ud: unknown) => number>(handler, EventHandlerFn);
			if (!call) return 1;
			if (tag > 36) throw new Error(`unknown event tag ${tag} (pier knows 0–36)`);
			r.events.push({ tag, call, userData: ud });
			return 0;
		}) as Body),
		slot(SLOT.registerResourcesDiscover, "register_resources_discover", RegisterHandlerFn, ((
			r: PluginRegistry,
			fn: unknown,
			free: unknown,
			ud: unknown,
		) => {
			const call = decodeFn<PluginRegistry["discover"][number]["call"]>(fn, ResourcesDiscoverFn);
			if (!call) return 1;
			const freeFn = freeOf(free);
			noteFree(r, freeFn);
			r.discover.push({ call, free: freeFn, userData: ud });
			return 0;
		}) as Body),
		hostCallback(SLOT.runtimeAction, runtimeAction, RuntimeActionFn),
		// A plugin's own emit: pier has no bus for it, so it is noted on stderr.
		hostCallback(
			SLOT.dispatchEvent,
			(event: { tag: number }) => {
				process.stderr.write(`[native] plugin dispatch_event(tag ${event.tag}) is not delivered anywhere by pier\n`);
				return 0;
			},
			DispatchEventFn,
		),
		slot(SLOT.declare, "declare", DeclareFn, ((r: PluginRegistry, json: RawString) => {
			r.declaration = parseDeclaration(readText(json));
			declared(r.declaration);
			return 0;
		}) as Body),
		handlerSlot(SLOT.registerBeforeAgentStart, "register_before_agent_start", RegisterHandlerFn, (r, handler) =>
			r.beforeAgentStart.push(handler),
		),
		handlerSlot(
			SLOT.registerOAuthProvider,
			"register_oauth_provider",
			RegisterOAuthFn,
			(r, handler, manifest: RawString) => r.oauth.push({ manifest: readText(manifest), ...handler }),
			false,
		),
	];
}
