/**
 * One QuickJS extension, alone in a worker thread: its own WebAssembly module and
 * memory (bounded, so runaway allocation ends in a clean "out of memory"), an
 * interrupt deadline on every turn of work (promise jobs included), no host
 * globals, and imports only of regular .js/.mjs files inside its package. Frames
 * cross as strings over the port.
 */
import { parentPort, workerData } from "node:worker_threads";
import RELEASE_SYNC_MODULE from "@jitl/quickjs-wasmfile-release-sync";
import {
	newQuickJSWASMModuleFromVariant,
	newVariant,
	type QuickJSContext,
	type QuickJSHandle,
} from "quickjs-emscripten-core";
import { moduleFile, readModule, resolveImport } from "./modules.js";
import { PRELUDE } from "./prelude.js";
import { TurnBudget } from "./turns.js";

export interface QuickJsWorkerData {
	manifest: { id: string; name: string; version: string; capabilities: string[]; uiCapabilities: string[] };
	entry: string;
	root: string;
	maxFrameBytes: number;
	memoryBytes: number;
	deadlineMs: number;
	/** The compiled QuickJS WebAssembly module, shared by every worker of the process. */
	wasmModule?: object;
	/** Shared with the channel: when the current turn began (ms since the epoch), 0 between turns. */
	turnClock: BigInt64Array;
}

// The package's types describe its CommonJS face; under ESM the default export is the variant itself.
type Variant = Parameters<typeof newVariant>[0];
const RELEASE_SYNC = ((RELEASE_SYNC_MODULE as unknown as { default?: Variant }).default ??
	RELEASE_SYNC_MODULE) as unknown as Variant;
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => unknown };

const PAGE = 64 * 1024;
const data = workerData as QuickJsWorkerData;
const port = parentPort!;
/** Every message names the extension and its entry file: several QuickJS extensions share one session. */
const label = `QuickJS extension ${data.manifest.id} (${data.entry})`;
let stopped = false;
/** The worker's last word: nothing of the guest runs after it; the channel terminates the worker. */
const fatal = (message: string) => {
	if (stopped) return;
	stopped = true;
	port.postMessage({ fatal: `${label}: ${message}` });
};

async function main(): Promise<void> {
	const memory = new WebAssembly.Memory({
		initial: Math.min(256, data.memoryBytes / PAGE),
		maximum: data.memoryBytes / PAGE,
	});
	const module = await newQuickJSWASMModuleFromVariant(
		newVariant(RELEASE_SYNC, {
			wasmMemory: memory as never,
			...(data.wasmModule ? { wasmModule: data.wasmModule as never } : {}),
		}) as Parameters<typeof newQuickJSWASMModuleFromVariant>[0],
	);
	const runtime = module.newRuntime();
	// The normalizer cannot fail an import itself, so a refusal travels as a module name the
	// loader recognises and turns into the import's error message.
	const REFUSED = "pier-refused:";
	runtime.setModuleLoader(
		(name) => {
			if (name.startsWith(REFUSED)) return { error: new Error(name.slice(REFUSED.length)) };
			const read = readModule(name);
			return "source" in read ? read.source : { error: new Error(read.refused) };
		},
		(base, requested) => {
			const checked =
				requested === data.entry ? moduleFile(data.root, requested) : resolveImport(data.root, base, requested);
			return "path" in checked ? checked.path : `${REFUSED}${checked.refused}`;
		},
	);
	const vm = runtime.newContext();
	const budget = new TurnBudget(runtime, { deadlineMs: data.deadlineMs });
	runtime.setInterruptHandler(() => budget.interrupt());
	/** One turn of guest work and every promise job it queues, within the turn's budget. */
	const run = (work: () => void) => {
		if (stopped) return;
		Atomics.store(data.turnClock, 0, BigInt(Date.now()));
		try {
			budget.begin();
			work();
			const overrun = budget.drain();
			if (overrun) fatal(overrun);
		} finally {
			Atomics.store(data.turnClock, 0, 0n);
		}
	};
	const send = vm.newFunction("__pier_send", (json: QuickJSHandle) => {
		const text = vm.getString(json);
		const bytes = Buffer.byteLength(text, "utf8");
		if (bytes > data.maxFrameBytes) {
			return { error: vm.newError(`frame of ${bytes} bytes exceeds max_frame_bytes ${data.maxFrameBytes}`) };
		}
		budget.sent(text);
		port.postMessage(text);
		return undefined;
	});
	vm.setProp(vm.global, "__pier_send", send);
	send.dispose();
	const manifest = vm.evalCode(`(${JSON.stringify(data.manifest)})`, "pier-manifest.js");
	vm.setProp(vm.global, "__pier_manifest", vm.unwrapResult(manifest));
	vm.unwrapResult(vm.evalCode(PRELUDE, "pier-prelude.js")).dispose();

	// The module's top-level code runs under the same deadline as any turn.
	let loaded: ReturnType<typeof vm.evalCode> | undefined;
	run(() => {
		const entry = JSON.stringify(data.entry);
		// Named for the extension, so an error from the bootstrap itself still says whose it is.
		loaded = vm.evalCode(
			`import factory from ${entry}; globalThis.__pier_setFactory(factory);`,
			`pier-load:${data.manifest.id}`,
			{
				type: "module",
			},
		);
	});
	if (stopped || !loaded) return;
	if (loaded.error) {
		const error = errorText(vm, loaded.error);
		loaded.error.dispose();
		fatal(`loading failed: ${error}`);
		return;
	}
	loaded.value.dispose();
	const receive = vm.getProp(vm.global, "__pier_receive");
	port.on("message", (json: string) => {
		if (stopped) return;
		budget.received(json);
		run(() => {
			const arg = vm.newString(json);
			const result = vm.callFunction(receive, vm.undefined, arg);
			arg.dispose();
			if (result.error) {
				const error = errorText(vm, result.error);
				result.error.dispose();
				fatal(`failed on a host frame: ${error}`);
			} else {
				result.value.dispose();
			}
		});
		// After `shutdown` nothing more comes: end the worker now instead of waiting out the host's grace period.
		if (json.startsWith('{"type":"shutdown"')) setImmediate(() => process.exit(0));
	});
	port.postMessage({ ready: true });
}

/**
 * A guest error as one line: its name, message and where it was thrown. Read property by property rather
 * than through vm.dump, which would run the guest's own JSON.stringify and trust what it returns.
 */
function errorText(vm: QuickJSContext, error: QuickJSHandle): string {
	const clip = (text: string) => (text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text);
	try {
		if (vm.typeof(error) !== "object") return clip(String(vm.dump(error)));
		const read = (key: string): string | undefined => {
			const value = vm.getProp(error, key);
			try {
				return vm.typeof(value) === "string" ? vm.getString(value) : undefined;
			} finally {
				value.dispose();
			}
		};
		const name = read("name");
		const message = read("message") ?? "a thrown object that is not an Error";
		const head = name && name !== "Error" ? `${name}: ${message}` : message;
		const at = /\bat .*?\(?([^()\s]+:\d+(?::\d+)?)\)?/.exec(read("stack") ?? "")?.[1];
		return clip(at ? `${head} (at ${at})` : head);
	} catch (failure) {
		return `an error that could not be read (${(failure as Error).message})`;
	}
}

main().catch((error: unknown) => fatal(`start failed: ${(error as Error).message}`));
