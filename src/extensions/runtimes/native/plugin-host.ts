/**
 * The plugin host: one Node process per native plugin library, a protocol-v1 guest written on the kit.
 *
 *   node plugin-host.js --id <id> --library <path> [--capabilities a,b] [--ui-capabilities c,d] [--max-frame-bytes N]
 *     [--version <the manifest's version>]
 *
 * Order matters: stdio is isolated before the library is opened (stdio.ts); the plugin registers at once
 * (registrars are only valid during that call); its `declare` goes to pier's native channel as a
 * `native_declare` frame ahead of the kit's hello; then the kit serves the protocol on fds 3/4 and its
 * `load` turns the collected registrations into protocol registrations (wire.ts).
 */
import { parseArgs } from "node:util";
import type * as Kit from "../../../../kit/node/index.mjs";
import type { Mode } from "../../protocol/frames.js";
import { actionHost } from "./action-host.js";
import { createActionSink } from "./actions-link.js";
import { type LoadedPlugin, loadPlugin } from "./loader.js";
import { type ActionSink, onDeclare, setActionSink } from "./registrars.js";
import { ProtocolPort } from "./protocol-io.js";
import { DEFAULT_DECLARATION } from "./registry.js";
import { isolateStdio } from "./stdio.js";
import { wirePlugin } from "./wire.js";

const { values } = parseArgs({
	options: {
		id: { type: "string" },
		library: { type: "string" },
		capabilities: { type: "string", default: "" },
		"ui-capabilities": { type: "string", default: "" },
		"max-frame-bytes": { type: "string", default: String(1024 * 1024) },
		version: { type: "string" },
	},
});
const list = (text: string | undefined) => (text ? text.split(",").filter(Boolean) : []);
const id = values.id ?? "native";
const library = values.library;
if (!library) {
	process.stderr.write("plugin-host: --library is required\n");
	process.exit(2);
}
const maxFrameBytes = Number(values["max-frame-bytes"]);
const capabilities = list(values.capabilities) as Kit.Capability[];
const uiCapabilities = list(values["ui-capabilities"]) as Kit.UiCapability[];

const stdio = isolateStdio();
const port = new ProtocolPort(maxFrameBytes);
// The kit reads `process.stdin` and writes `process.stdout`: give it the protocol fds instead.
Object.defineProperty(process, "stdin", { value: port.input, configurable: true });
Object.defineProperty(process, "stdout", { value: port.output, configurable: true });

let handedOver = false;
onDeclare((declared) => {
	if (!declared.ownsStdio || handedOver) return;
	handedOver = true;
	stdio.handOver();
});
// Before the kit is live only StdioLifecycle is answered (an owner's worker thread may reach EOF at once; its
// finish is kept and sent); every other runtime_action gets -1, no bridge yet.
setActionSink((actionId, argsJson) => earlyStdio(actionId, argsJson));

let loaded: LoadedPlugin | undefined;
let loadError: Error | undefined;
try {
	loaded = loadPlugin(library);
} catch (error) {
	loadError = error as Error;
}
const declaration = loaded?.registry.declaration ?? DEFAULT_DECLARATION;
port.send({ type: "native_declare", ...declaration });
if (!handedOver) stdio.release();

// Until the kit is live the plugin's runtime_action answers -1 (no bridge): pier fails the whole load for a
// runtime request before that.
let mode: Mode = "print";

const kit = (await import(new URL("../../../../../kit/node/index.mjs", import.meta.url).href)) as typeof Kit;
kit.runExtension(
	{ id, ...(values.version ? { version: values.version } : {}), capabilities, uiCapabilities },
	(pi) => {
		if (loadError) throw loadError;
		wirePlugin(pi, loaded!, {
			id,
			capabilities,
			uiCapabilities,
			onContext: (ctx) => {
				mode = ctx.mode;
			},
			log: (line) => process.stderr.write(`[${id}] ${line}\n`),
		});
		// Live once the kit has answered `load` (it does so right after this factory returns).
		const host = actionHost(port, pi, {
			extensionId: id,
			capabilities,
			owner: declaration.ownsStdio,
			mode: () => mode,
		});
		setImmediate(() => setActionSink(createActionSink(host)));
	},
	{ maxFrameBytes },
);

/** StdioLifecycle (21) before the bridge is up: `status` and `finish` for an owner, as actions.ts answers them. */
function earlyStdio(actionId: number, argsJson: string): ReturnType<ActionSink> {
	if (actionId !== 21)
		return { code: -1, out: JSON.stringify({ error: "runtime_action is not available yet (the plugin is loading)" }) };
	let args: { op?: unknown; exitCode?: unknown } = {};
	try {
		args = JSON.parse(argsJson || "{}");
	} catch {
		// not JSON: counts as {}
	}
	if (!handedOver)
		return {
			code: 1,
			out: JSON.stringify({ error: "only the plugin that owns stdio (declare ownsStdio) may use StdioLifecycle" }),
		};
	if (args.op === "finish") {
		const exitCode = Number.isInteger(args.exitCode) ? (args.exitCode as number) : 0;
		port.send({ type: "native_finish", exitCode });
		return { code: 0, out: JSON.stringify({ ok: true, exitCode }) };
	}
	return { code: 0, out: JSON.stringify({ supported: true, owner: true, finished: false }) };
}
