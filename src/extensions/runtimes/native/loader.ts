/**
 * Loading one plugin library: dlopen it, resolve `rpi_plugin_register`, hand it pier's `PluginApi` and
 * collect what it registers. The struct is 256 zero-filled bytes (abi_version 4, struct_size 256) that stay
 * allocated for the life of the process: plugins may keep the pointer. Its slots are registrars.ts's host
 * callbacks, which only accept calls while `register` runs (rpi's rule: afterwards they return -1).
 */
import {
	ABI_VERSION,
	HOST_FREE,
	koffi,
	malloc,
	PLUGIN_API_BYTES,
	REGISTER_PANIC_STATUS,
	REGISTER_SYMBOL,
	SLOT,
} from "./abi.js";
import { registrarSlots, withRegistry } from "./registrars.js";
import { emptyRegistry, type PluginRegistry } from "./registry.js";

export class PluginLoadError extends Error {
	override name = "PluginLoadError";
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
	for (const [offset, pointer] of registrarSlots()) koffi.encode(memory, offset, "void *", pointer);
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
	const code = withRegistry(registry, () => register(memory));
	if (code !== 0) throw new PluginLoadError(registerFailure(library, code));
	return { library, registry, handle };
}
