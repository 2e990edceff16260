/**
 * How the guest core (kit/core/*.mjs, the protocol's guest side that the Node kit uses too) gets into a QuickJS
 * sandbox: as QuickJS modules named `pier:core/<file>`, read once per worker and compiled by each guest, and a
 * bootstrap module that hands the core its transport (`__pier_send` out, `__pier_receive` in). The bootstrap
 * runs before any of the extension's code and takes `__pier_send` off the global object, so the extension can
 * only speak through the core.
 */
import { readdirSync, readFileSync } from "node:fs";

/** Module names of the core: the only names that resolve outside the extension's package. */
export const CORE_PREFIX = "pier:core/";
/** The bootstrap's own module name (its imports resolve into the core). */
export const BOOT_MODULE = "pier:boot.mjs";

// tsc copies kit/core to dist/kit/core (allowJs); this file is dist/src/extensions/runtimes/quickjs/core.js.
const CORE_DIR = new URL("../../../../kit/core/", import.meta.url);

let sources: Map<string, string> | undefined;

/** The core's module sources by module name, read on first use (once per worker thread). */
function coreSources(): Map<string, string> {
	if (!sources) {
		sources = new Map();
		for (const file of readdirSync(CORE_DIR)) {
			if (file.endsWith(".mjs")) sources.set(CORE_PREFIX + file, readFileSync(new URL(file, CORE_DIR), "utf8"));
		}
	}
	return sources;
}

/** A core module's source, or undefined when `name` names none. */
export function coreModule(name: string): string | undefined {
	return coreSources().get(name);
}

/**
 * Where an import from the bootstrap or a core module leads: the core's own relative imports stay in the core.
 * Undefined when `base` is not part of the core (the extension's imports are resolved as its package's files).
 */
export function resolveCoreImport(base: string, requested: string): string | undefined {
	if (base !== BOOT_MODULE && !base.startsWith(CORE_PREFIX)) return undefined;
	if (requested.startsWith(CORE_PREFIX)) return requested;
	if (requested.startsWith("./") && !requested.slice(2).includes("/")) return CORE_PREFIX + requested.slice(2);
	return `${CORE_PREFIX}refused:${requested}`;
}

/**
 * The bootstrap: the core's guest with QuickJS's transport. JSON is the global one at each call, as the extension
 * left it: what the guest sends is its own text either way, and the host treats it so (inbound.ts). A send
 * refused for its size is the core's `frame_too_large`. Errors name the extension
 * and where its code threw, since several QuickJS extensions share a session.
 */
export const BOOTSTRAP = `
import { createGuest } from "${CORE_PREFIX}guest.mjs";
const send = globalThis.__pier_send;
delete globalThis.__pier_send;
const manifest = globalThis.__pier_manifest;
delete globalThis.__pier_manifest;
const errorText = (error) => {
  const message = error && error.message ? String(error.message) : String(error);
  const stack = error && typeof error.stack === "string" ? error.stack : "";
  let where = "";
  for (const line of stack.split("\\n")) {
    const at = /\\bat .*?\\(?([^()\\s]+:\\d+(?::\\d+)?)\\)?/.exec(line);
    if (at && !at[1].startsWith("pier:")) { where = ", at " + at[1]; break; }
  }
  return message + " (QuickJS extension " + manifest.id + where + ")";
};
const guest = createGuest({
  manifest,
  runtime: "quickjs",
  requestPrefix: "qjs-",
  rendersMessages: false,
  deferHandlers: true,
  errorText,
  send(frame) {
    const text = JSON.stringify(frame);
    try { send(text); } catch (error) { error.code = "frame_too_large"; throw error; }
  },
  fatal(message) { throw new Error(message); },
});
globalThis.__pier_receive = (json) => guest.dispatch(JSON.parse(json));
globalThis.__pier_setFactory = (factory) => {
  if (typeof factory !== "function") throw new TypeError("the entry must default-export a factory function: export default function (pi) { ... }");
  guest.setFactory(factory);
};
`;
