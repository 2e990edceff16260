/**
 * What a plugin registered during `rpi_plugin_register`, as plain JS values: the plugin's function pointers
 * already decoded into callables, its strings copied out (and freed with its own deallocator). The plugin
 * host turns this into protocol registrations (plugin-host.ts).
 */
import type { RawString } from "./abi.js";
import type { ToolFns } from "./tool-ffi.js";

export type FreeFn = (s: RawString) => void;
export type Ref = { ptr: string | null; len: number };
/** `out` is filled in place by koffi (an `_Inout_ StbString *`): pass `{ptr: null, len: 0}`. */
export type StringHandler = (input: Ref, out: RawString, userData: unknown) => number;

export interface NativeTool {
	name: string;
	description: string;
	/** JSON Schema (the plugin's text, parsed); an object schema without properties when it was not JSON. */
	parameters: Record<string, unknown>;
	/** execute, poll, cancel, destroy (and set_waker for `register_tool_with_wake`), with the plugin's free. */
	fns: ToolFns;
}

/** A string-in/string-out plugin function with the deallocator for its answer. */
export interface NativeHandler {
	call: StringHandler;
	free: FreeFn | undefined;
	userData: unknown;
}

export interface NativeCommand extends NativeHandler {
	name: string;
	description: string;
}

export interface NativeNamed extends NativeHandler {
	name: string;
}

export interface NativeProvider extends NativeHandler {
	id: string;
	baseUrl: string;
	apiStyle: string;
}

export interface NativeEventHandler {
	tag: number;
	call: (event: unknown, userData: unknown) => number;
	userData: unknown;
}

export interface NativeDiscover {
	call: (cwd: Ref, reason: Ref, out: RawString, userData: unknown) => number;
	free: FreeFn | undefined;
	userData: unknown;
}

/** `declare`'s JSON, read with its defaults (native-abi.md §2.8). */
export interface Declaration {
	/** Smaller loads first; default 100. */
	priority: number;
	/** Empty = every platform. */
	platforms: string[];
	ownsStdio: boolean;
}

export const DEFAULT_DECLARATION: Declaration = { priority: 100, platforms: [], ownsStdio: false };

export interface PluginRegistry {
	tools: NativeTool[];
	commands: NativeCommand[];
	shortcuts: Array<{ key: string; description: string }>;
	flags: Array<{ name: string; description: string }>;
	providers: NativeProvider[];
	messageRenderers: NativeNamed[];
	markdownTransformers: NativeNamed[];
	entryRenderers: NativeNamed[];
	events: NativeEventHandler[];
	discover: NativeDiscover[];
	beforeAgentStart: NativeHandler[];
	oauth: Array<NativeHandler & { manifest: string }>;
	declaration: Declaration;
	/** Why a registrar refused something (logged; the registration itself goes on). */
	problems: string[];
	/**
	 * The plugin's first registered `plugin_free_string`: the deallocator for buffers that come with none of
	 * their own (a command handler's `out`, CONTRACT.md); undefined means such buffers are leaked.
	 */
	firstFree: FreeFn | undefined;
}

export function emptyRegistry(): PluginRegistry {
	return {
		tools: [],
		commands: [],
		shortcuts: [],
		flags: [],
		providers: [],
		messageRenderers: [],
		markdownTransformers: [],
		entryRenderers: [],
		events: [],
		discover: [],
		beforeAgentStart: [],
		oauth: [],
		declaration: { ...DEFAULT_DECLARATION },
		problems: [],
		firstFree: undefined,
	};
}
