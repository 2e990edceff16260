/**
 * One QuickJS extension, alone in a worker thread: its own WebAssembly module and
 * memory (bounded, so runaway allocation ends in a clean "out of memory"), an
 * interrupt deadline on every turn of work, no host globals, and imports only of
 * .js/.mjs files inside its package. Frames cross as strings over the port.
 */
import { readFileSync, realpathSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import RELEASE_SYNC_MODULE from "@jitl/quickjs-wasmfile-release-sync";
import {
	newQuickJSWASMModuleFromVariant,
	newVariant,
	type QuickJSHandle,
	shouldInterruptAfterDeadline,
} from "quickjs-emscripten-core";
import { PRELUDE } from "./prelude.js";

export interface QuickJsWorkerData {
	manifest: { id: string; name: string; version: string; capabilities: string[]; uiCapabilities: string[] };
	entry: string;
	root: string;
	maxFrameBytes: number;
	memoryBytes: number;
	deadlineMs: number;
	/** The compiled QuickJS WebAssembly module, shared by every worker of the process. */
	wasmModule?: object;
}

// The package's types describe its CommonJS face; under ESM the default export is the variant itself.
type Variant = Parameters<typeof newVariant>[0];
const RELEASE_SYNC = ((RELEASE_SYNC_MODULE as unknown as { default?: Variant }).default ??
	RELEASE_SYNC_MODULE) as unknown as Variant;
declare const WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => unknown };

const PAGE = 64 * 1024;
const data = workerData as QuickJsWorkerData;
const port = parentPort!;
const fatal = (message: string) => port.postMessage({ fatal: message });

function inside(root: string, path: string): boolean {
	return path === root || path.startsWith(root + sep);
}

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
	const refuse = (message: string) => `${REFUSED}${message}`;
	runtime.setModuleLoader(
		(name) => {
			if (name.startsWith(REFUSED)) return { error: new Error(name.slice(REFUSED.length)) };
			try {
				return readFileSync(name, "utf8");
			} catch (error) {
				return { error: new Error(`cannot read module ${name}: ${(error as NodeJS.ErrnoException).code}`) };
			}
		},
		(base, requested) => {
			if (requested === data.entry) return requested;
			if (!requested.startsWith("./") && !requested.startsWith("../")) {
				return refuse(`import "${requested}" refused: only relative .js/.mjs files inside the package can be imported`);
			}
			const target = resolve(dirname(base), requested);
			let real: string;
			try {
				real = realpathSync(target);
			} catch {
				return refuse(`import "${requested}" refused: ${target} does not exist`);
			}
			if (!inside(data.root, real)) return refuse(`import "${requested}" refused: it is outside the package directory`);
			if (!/\.m?js$/.test(real))
				return refuse(`import "${requested}" refused: only .js and .mjs files can be imported`);
			return real;
		},
	);
	const vm = runtime.newContext();
	const run = (work: () => void) => {
		runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + data.deadlineMs));
		work();
		for (;;) {
			const jobs = runtime.executePendingJobs();
			if (jobs.error) {
				jobs.error.dispose();
				continue;
			}
			if (jobs.value === 0) break;
		}
	};

	const send = vm.newFunction("__pier_send", (json: QuickJSHandle) => {
		const text = vm.getString(json);
		const bytes = Buffer.byteLength(text, "utf8");
		if (bytes > data.maxFrameBytes) {
			return { error: vm.newError(`frame of ${bytes} bytes exceeds max_frame_bytes ${data.maxFrameBytes}`) };
		}
		port.postMessage(text);
		return undefined;
	});
	vm.setProp(vm.global, "__pier_send", send);
	send.dispose();
	const manifest = vm.evalCode(`(${JSON.stringify(data.manifest)})`);
	vm.setProp(vm.global, "__pier_manifest", vm.unwrapResult(manifest));
	vm.unwrapResult(vm.evalCode(PRELUDE, "pier-prelude.js")).dispose();

	const entry = JSON.stringify(data.entry);
	const loaded = vm.evalCode(`import factory from ${entry}; globalThis.__pier_setFactory(factory);`, "<pier-entry>", {
		type: "module",
	});
	if (loaded.error) {
		const error = vm.dump(loaded.error) as { message?: string } | string;
		loaded.error.dispose();
		fatal(
			`loading ${data.entry} failed: ${typeof error === "string" ? error : (error?.message ?? JSON.stringify(error))}`,
		);
		return;
	}
	loaded.value.dispose();
	run(() => {});
	const receive = vm.getProp(vm.global, "__pier_receive");
	port.on("message", (json: string) => {
		run(() => {
			const arg = vm.newString(json);
			const result = vm.callFunction(receive, vm.undefined, arg);
			arg.dispose();
			if (result.error) {
				const error = vm.dump(result.error) as { message?: string };
				result.error.dispose();
				fatal(`the extension failed on a host frame: ${error?.message ?? String(error)}`);
			} else {
				result.value.dispose();
			}
		});
		// After `shutdown` nothing more comes: end the worker now instead of waiting out the host's grace period.
		if (json.startsWith('{"type":"shutdown"')) setImmediate(() => process.exit(0));
	});
	port.postMessage({ ready: true });
}

main().catch((error: unknown) => fatal(`QuickJS start failed: ${(error as Error).message}`));
