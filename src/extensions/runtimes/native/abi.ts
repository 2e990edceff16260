/**
 * The rpi-plugin-sdk C ABI (version 4) as koffi types: the one place the layouts live
 * (/work/shared/native-abi.md §1–2 and CONTRACT.md's slots 18–21; the tool lifecycle's hot-path form is
 * tool-ffi.ts). x86-64 / aarch64 Linux layouts:
 * a `StbString` is two pointer-sized words, a `StepResult` is a tag and one string (every union arm of it is
 * a single string at offset 8), a `StablePluginEvent` is a tag and the widest arm of its 56-byte union.
 *
 * Only the plugin host (the child process) imports this module: koffi never loads into pier itself.
 */
import koffiModule from "koffi";

type CType = ReturnType<typeof koffiModule.proto>;
/** koffi's calls pier uses that its typings leave out (`view`, `address`) or type too narrowly. */
interface Ffi {
	view(ptr: unknown, length: number): ArrayBuffer;
	address(ptr: unknown): bigint;
	decode(ptr: unknown, type: CType | string, length?: number): unknown;
	encode(ptr: unknown, offset: number, type: CType | string, value: unknown): void;
	register(fn: (...args: never[]) => unknown, type: CType): unknown;
	unregister(callback: unknown): void;
	pointer(type: CType): CType;
	sizeof(type: CType | string): number;
}
export const koffi = koffiModule as unknown as typeof koffiModule & Ffi;

export const ABI_VERSION = 4;
/** What pier passes as `struct_size`: 32 pointer-sized slots, zero-filled past the ones it fills (decision 13). */
export const PLUGIN_API_BYTES = 256;
/** pier's own SDK `PluginApi` (22 fields); a plugin compiled against a larger struct still loads. */
export const KNOWN_API_BYTES = 168;
export const REGISTER_SYMBOL = "rpi_plugin_register";
export const REGISTER_PANIC_STATUS = 70;

export const StepTag = { Pending: 0, Done: 1, Err: 2 } as const;
export const HandlerCode = { Continue: 0, Error: 1, Abort: 2, Claimed: 3 } as const;

/** Owning (plugin or host produced) and borrowed strings share one layout: `{ptr, len}`, UTF-8, no NUL. */
export const StbString = koffi.struct("StbString", { ptr: "void *", len: "size_t" });
export const StbStringRef = koffi.struct("StbStringRef", { ptr: "void *", len: "size_t" });
/**
 * The same layout for strings the host lends the plugin: `ptr` is JS text that koffi converts to a
 * temporary UTF-8 buffer for the call (`len` its byte length), cheaper than a Buffer per argument.
 */
export const StbStringIn = koffi.struct("StbStringIn", { ptr: "const char *", len: "size_t" });
export const StableToolSchema = koffi.struct("StableToolSchema", {
	name: StbString,
	description: StbString,
	parameters: StbString,
});
/** `{tag, payload}`; the payload's arms: message/error/data = `a`; tool_call = a,b,c; tool_result = a,b,c,isError. */
export const StablePluginEvent = koffi.struct("StablePluginEvent", {
	tag: "uint32_t",
	a: StbString,
	b: StbString,
	c: StbString,
	isError: "uint8_t",
});
/** The event as the host lends it to a handler (its strings are the host's, borrowed for the call). */
export const StablePluginEventIn = koffi.struct("StablePluginEventIn", {
	tag: "uint32_t",
	a: StbStringIn,
	b: StbStringIn,
	c: StbStringIn,
	isError: "uint8_t",
});

/** A string as koffi reads it: `ptr` is an External (or null), `len` a number. */
export interface RawString {
	ptr: unknown;
	len: number | bigint;
}

// Plugin-implemented functions (called by the host).
export const FreeStringFn = koffi.proto("void FreeStringFn(StbString s)");
// The tool lifecycle (execute, poll, cancel, destroy, set_waker) and its two callbacks are declared in
// tool-ffi.ts, in an integer form that is cheaper to call on every tool call.
/** CommandHandlerFn, RenderFn, ProviderRequestFn, BeforeAgentStartFn, OAuthRequestFn: one shape. */
export const StringHandlerFn = koffi.proto(
	"int32_t StringHandlerFn(StbStringIn input, _Inout_ StbString *out, void *userData)",
);
export const ResourcesDiscoverFn = koffi.proto(
	"int32_t ResourcesDiscoverFn(StbStringIn cwd, StbStringIn reason, _Inout_ StbString *out, void *userData)",
);
export const EventHandlerFn = koffi.proto("int32_t EventHandlerFn(StablePluginEventIn event, void *userData)");

// Host-implemented callbacks (registered JS functions the plugin calls).
export const RuntimeActionFn = koffi.proto(
	"int32_t RuntimeActionFn(uint32_t id, StbStringRef args, void *out, void *userData)",
);
export const DispatchEventFn = koffi.proto("int32_t DispatchEventFn(StablePluginEvent event, void *userData)");
export const RegisterToolFn = koffi.proto(
	"int32_t RegisterToolFn(void *schema, void *execute, void *poll, void *cancel, void *destroy, void *pluginFree)",
);
export const RegisterToolWithWakeFn = koffi.proto(
	"int32_t RegisterToolWithWakeFn(void *schema, void *execute, void *poll, void *cancel, void *destroy, void *pluginFree, void *setWaker)",
);
export const RegisterCommandFn = koffi.proto(
	"int32_t RegisterCommandFn(StbStringRef name, StbStringRef description, void *handler)",
);
export const RegisterPairFn = koffi.proto("int32_t RegisterPairFn(StbStringRef name, StbStringRef description)");
export const RegisterProviderFn = koffi.proto(
	"int32_t RegisterProviderFn(StbStringRef id, StbStringRef baseUrl, StbStringRef apiStyle, void *request, void *pluginFree, void *userData)",
);
export const RegisterRendererFn = koffi.proto(
	"int32_t RegisterRendererFn(StbStringRef name, void *render, void *pluginFree, void *userData)",
);
export const RegisterEventHandlerFn = koffi.proto(
	"int32_t RegisterEventHandlerFn(uint32_t tag, void *handler, void *userData)",
);
export const RegisterHandlerFn = koffi.proto(
	"int32_t RegisterHandlerFn(void *handler, void *pluginFree, void *userData)",
);
export const DeclareFn = koffi.proto("int32_t DeclareFn(StbStringRef json)");
export const RegisterOAuthFn = koffi.proto(
	"int32_t RegisterOAuthFn(StbStringRef manifest, void *request, void *pluginFree, void *userData)",
);

/**
 * The `PluginApi` slots pier fills, by byte offset (native-abi.md §1.3, CONTRACT.md slots 18–21). Everything
 * past offset 168 up to 256 stays zero.
 */
export const SLOT = {
	abiVersion: 0,
	structSize: 4,
	freeString: 8,
	registerTool: 16,
	registerCommand: 24,
	registerShortcut: 32,
	registerFlag: 40,
	registerProvider: 48,
	registerMessageRenderer: 56,
	registerMarkdownTransformer: 64,
	registerEntryRenderer: 72,
	registerEventHandler: 80,
	registerResourcesDiscover: 88,
	runtimeAction: 96,
	dispatchEvent: 104,
	userData: 112,
	declare: 120,
	registerBeforeAgentStart: 128,
	registerOAuthProvider: 136,
	registerToolWithWake: 144,
	reserved20: 152,
	reserved21: 160,
} as const;

const libc = koffi.load("libc.so.6");
export const malloc = libc.func("void *malloc(size_t size)");
const dlsym = libc.func("void *dlsym(void *handle, const char *name)");
/** A malloc'd copy of `len` bytes of JS text: one call for allocation and copy (JSON text holds no NUL). */
const strndup = libc.func("void *strndup(const char *text, size_t len)") as (text: string, len: number) => unknown;
/**
 * The host's `free_string` is libc's `free` itself: a `StbString` by value arrives in two registers (x86-64 and
 * aarch64 alike), the first being `ptr`, so `free(ptr)` is exactly "free this host string". No JS runs for it,
 * so a plugin may free host strings from any thread.
 */
export const HOST_FREE: unknown = dlsym(null, "free");

/**
 * The text of a string the host borrows (plugin-owned or a ref), copied out of native memory as UTF-8
 * (koffi's decode of `len` chars: several times faster than a view and a TextDecoder).
 */
export function readText(s: RawString): string {
	const len = Number(s.len);
	if (s.ptr === null || len === 0) return "";
	return koffi.decode(s.ptr, "char", len) as string;
}

/** A borrowed `StbStringIn` of JS text, valid for the one call it is passed to. */
export function ref(text: string): { ptr: string | null; len: number } {
	if (text.length === 0) return { ptr: null, len: 0 };
	return { ptr: text, len: Buffer.byteLength(text, "utf8") };
}

/** An owned `StbString` the plugin frees with the host's `free_string` (libc free), e.g. execute params. */
export function hostString(text: string): { ptr: unknown; len: number } {
	if (text.length === 0) return { ptr: null, len: 0 };
	const len = Buffer.byteLength(text, "utf8");
	const ptr = strndup(text, len);
	if (ptr === null) throw new Error(`out of memory allocating ${len} bytes for a plugin string`);
	return { ptr, len };
}

/** A plugin function pointer as a callable; null stays null (an optional slot the plugin left empty). */
export function decodeFn<T>(ptr: unknown, proto: CType): T | null {
	if (ptr === null || ptr === undefined || koffi.address(ptr) === 0n) return null;
	return koffi.decode(ptr, proto) as T;
}

/** A host callback the plugin may call at any time (until `koffi.unregister`): a pointer to pass it. */
export function callback(fn: (...args: never[]) => unknown, proto: CType): unknown {
	return koffi.register(fn, koffi.pointer(proto));
}
