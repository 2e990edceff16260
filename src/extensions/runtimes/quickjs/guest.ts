/**
 * One QuickJS extension inside a shared worker thread: its own WebAssembly instance and memory (bounded, so
 * runaway allocation ends in a clean "out of memory" and cannot touch a neighbour's heap), an interrupt
 * deadline on every turn of work (promise jobs included), no host globals, and imports only of regular
 * .js/.mjs files inside its package. Frames cross as strings over the guest's own MessagePort.
 */
import type { MessagePort } from "node:worker_threads";
import RELEASE_SYNC_MODULE from "@jitl/quickjs-wasmfile-release-sync";
import {
	newQuickJSWASMModuleFromVariant,
	newVariant,
	type QuickJSContext,
	type QuickJSHandle,
} from "quickjs-emscripten-core";
import { moduleFile, readModule, resolveImport } from "./modules.js";
import { BOOT_MODULE, BOOTSTRAP, CORE_PREFIX, coreModule, resolveCoreImport } from "./core.js";
import { TurnBudget } from "./turns.js";

export interface QuickJsGuestData {
	manifest: { id: string; name: string; version: string; capabilities: string[]; uiCapabilities: string[] };
	entry: string;
	root: string;
	maxFrameBytes: number;
	memoryBytes: number;
	deadlineMs: number;
	/** A turn running this long (in the guest's own time) stops the guest, whatever its budget says. */
	watchdogMs: number;
}

/** What the worker's scheduler gives each guest. */
export interface GuestHost {
	/** Called from the guest's interrupt handler: the scheduler may run a neighbour's waiting turn here. */
	poll(guest: Guest): void;
	/** The host asked for this guest to stop (its channel was terminated). */
	stopRequested(guest: Guest): boolean;
}

// The package's types describe its CommonJS face; under ESM the default export is the variant itself.
type Variant = Parameters<typeof newVariant>[0];
const RELEASE_SYNC = ((RELEASE_SYNC_MODULE as unknown as { default?: Variant }).default ??
	RELEASE_SYNC_MODULE) as unknown as Variant;
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => unknown };

const PAGE = 64 * 1024;
/** The normalizer cannot fail an import itself, so a refusal travels as a module name the loader refuses. */
const REFUSED = "pier-refused:";

export class Guest {
	stopped = false;
	/** Milliseconds neighbours ran nested inside this guest's turns: its own clock does not count them. */
	stolen = 0;
	private vm!: QuickJSContext;
	private receiver!: QuickJSHandle;
	private budget!: TurnBudget;
	/** When the current turn began, on the guest's own clock; undefined between turns. */
	private turnBegan: number | undefined;
	/** Every message names the extension and its entry file: several QuickJS extensions share one session. */
	private readonly label: string;
	private readonly clock = () => Date.now() - this.stolen;

	constructor(
		readonly slot: number,
		readonly data: QuickJsGuestData,
		readonly port: MessagePort,
		private readonly host: GuestHost,
	) {
		this.label = `QuickJS extension ${data.manifest.id} (${data.entry})`;
	}

	get busy(): boolean {
		return this.turnBegan !== undefined;
	}

	/** The guest's last word: nothing of it runs after this; the host closes its channel. */
	fatal(message: string): void {
		if (this.stopped) return;
		this.stopped = true;
		this.budget?.abort();
		this.port.postMessage({ fatal: `${this.label}: ${message}` });
	}

	/** Instantiates QuickJS on the shared compiled module and starts the guest core (core.ts) in it. */
	async start(wasmModule: object | undefined): Promise<void> {
		const data = this.data;
		const memory = new WebAssembly.Memory({
			initial: Math.min(256, data.memoryBytes / PAGE),
			maximum: data.memoryBytes / PAGE,
		});
		const module = await newQuickJSWASMModuleFromVariant(
			newVariant(RELEASE_SYNC, {
				wasmMemory: memory as never,
				...(wasmModule ? { wasmModule: wasmModule as never } : {}),
			}) as Parameters<typeof newQuickJSWASMModuleFromVariant>[0],
		);
		const runtime = module.newRuntime();
		runtime.setModuleLoader(
			(name) => {
				if (name.startsWith(REFUSED)) return { error: new Error(name.slice(REFUSED.length)) };
				if (name.startsWith(CORE_PREFIX))
					return coreModule(name) ?? { error: new Error(`no guest core module ${name}`) };
				const read = readModule(name);
				return "source" in read ? read.source : { error: new Error(read.refused) };
			},
			(base, requested) => {
				const core = resolveCoreImport(base, requested);
				if (core !== undefined) return core;
				const checked =
					requested === data.entry ? moduleFile(data.root, requested) : resolveImport(data.root, base, requested);
				return "path" in checked ? checked.path : `${REFUSED}${checked.refused}`;
			},
		);
		const vm = runtime.newContext();
		this.vm = vm;
		this.budget = new TurnBudget(runtime, { deadlineMs: data.deadlineMs }, this.clock);
		runtime.setInterruptHandler(() => this.interrupt());
		const send = vm.newFunction("__pier_send", (json: QuickJSHandle) => {
			const text = vm.getString(json);
			// A UTF-16 unit is 1 to 3 UTF-8 bytes: most frames need no byte count.
			const bytes = text.length * 3 > data.maxFrameBytes ? Buffer.byteLength(text, "utf8") : 0;
			if (bytes > data.maxFrameBytes) {
				return {
					error: vm.newError(
						`extension protocol frame exceeds ${data.maxFrameBytes} bytes (max_frame_bytes; this one is ${bytes})`,
					),
				};
			}
			if (this.stopped) return undefined;
			this.budget.sent(text);
			this.port.postMessage(text);
			return undefined;
		});
		vm.setProp(vm.global, "__pier_send", send);
		send.dispose();
		const manifest = vm.evalCode(`(${JSON.stringify(data.manifest)})`, "pier-manifest.js");
		vm.setProp(vm.global, "__pier_manifest", vm.unwrapResult(manifest));
		vm.unwrapResult(vm.evalCode(BOOTSTRAP, BOOT_MODULE, { type: "module" })).dispose();
		runtime.executePendingJobs().error?.dispose();
		const receive = vm.getProp(vm.global, "__pier_receive");
		const started = vm.typeof(receive) === "function";
		receive.dispose();
		if (!started) throw new Error("the guest core did not start");
	}

	/** Loads the entry module and reports ready (a turn: the scheduler runs it). */
	load(): void {
		if (this.stopped) return;
		const { vm, data } = this;
		// The module's top-level code runs under the same deadline as any turn.
		let loaded: ReturnType<typeof vm.evalCode> | undefined;
		this.run(() => {
			const entry = JSON.stringify(data.entry);
			// Named for the extension, so an error from the bootstrap itself still says whose it is.
			loaded = vm.evalCode(
				`import factory from ${entry}; globalThis.__pier_setFactory(factory);`,
				`pier-load:${data.manifest.id}`,
				{ type: "module" },
			);
		});
		if (this.stopped || !loaded) return;
		if (loaded.error) {
			const error = errorText(vm, loaded.error);
			loaded.error.dispose();
			this.fatal(`loading failed: ${error}`);
			return;
		}
		loaded.value.dispose();
		this.receiver = vm.getProp(vm.global, "__pier_receive");
		this.port.postMessage({ ready: true });
	}

	/** One host frame: a turn of guest work. */
	receive(json: string): void {
		if (this.stopped) return;
		this.budget.received(json);
		this.run(() => {
			const arg = this.vm.newString(json);
			const result = this.vm.callFunction(this.receiver, this.vm.undefined, arg);
			arg.dispose();
			if (result.error) {
				const error = errorText(this.vm, result.error);
				result.error.dispose();
				this.fatal(`failed on a host frame: ${error}`);
			} else {
				result.value.dispose();
			}
		});
		// After `shutdown` nothing more comes: the guest goes now instead of waiting out the host's grace period.
		if (!this.stopped && json.startsWith('{"type":"shutdown"')) {
			this.stopped = true;
			this.port.postMessage({ exit: true });
		}
	}

	/** One turn of guest work and every promise job it queues, within the turn's budget. */
	private run(work: () => void): void {
		if (this.stopped) return;
		this.turnBegan = this.clock();
		try {
			this.budget.begin();
			work();
			const overrun = this.budget.drain();
			if (overrun) this.fatal(overrun);
		} catch (error) {
			// A trap inside this guest's WebAssembly (its instance is unusable now), never a neighbour's.
			this.fatal(`its QuickJS instance failed: ${(error as Error).message}`);
		} finally {
			this.turnBegan = undefined;
		}
	}

	private interrupt(): boolean {
		if (this.stopped) return true;
		if (this.host.stopRequested(this)) {
			this.stopped = true;
			this.budget.abort();
			return true;
		}
		this.host.poll(this);
		if (this.turnBegan !== undefined && this.clock() - this.turnBegan > this.data.watchdogMs) {
			this.fatal(`did not yield for ${this.data.watchdogMs} ms; it was stopped`);
			return true;
		}
		return this.budget.interrupt();
	}
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
