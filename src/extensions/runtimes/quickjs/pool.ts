/**
 * Where QuickJS guests run: worker threads (worker.ts) of up to GUESTS_PER_WORKER guests each, shared by the
 * whole pier process, and the last-resort watchdog over each worker.
 *
 * Each guest is its own WebAssembly instance with its own memory, so an out-of-memory, a trap or a runaway
 * loop stays that guest's: the worker stops it and its neighbours go on. The one thing guests of a worker do
 * share is the thread: a worker that stops showing signs of life inside a turn (something the interrupt cannot
 * reach) is terminated by the watchdog here, and every guest on it ends with a message naming the one whose turn
 * it was. Nothing a guest's code is known to do gets there; it is kept because "never" cannot be proved.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type MessagePort, Worker } from "node:worker_threads";
import type { QuickJsGuestData } from "./guest.js";
import type { WorkerControl, QuickJsWorkerData } from "./worker.js";

declare const WebAssembly: { Module: new (bytes: Uint8Array) => object };

/**
 * Guests per worker thread. A worker's own memory (its V8 isolate and Node environment) is paid once for this many
 * guests, and so is shared thread time: a guest computing up to its deadline keeps the others on its worker waiting.
 * Sixteen keeps the memory an idle extension costs under the 2 MiB the bench checks.
 */
export const GUESTS_PER_WORKER = 16;

/**
 * QuickJS's WebAssembly, compiled once per pier process and handed to every worker:
 * compiling it in each worker is most of a QuickJS extension's start-up time.
 */
let compiled: object | undefined;
function quickjsModule(): object {
	if (!compiled) {
		const require = createRequire(import.meta.url);
		const packageDir = dirname(require.resolve("@jitl/quickjs-wasmfile-release-sync/package.json"));
		compiled = new WebAssembly.Module(readFileSync(join(packageDir, "dist", "emscripten-module.wasm")));
	}
	return compiled;
}

export interface Tenant {
	id: string;
	/** The worker may go this long inside a turn without a sign of life. */
	watchdogMs: number;
	/** The worker under this guest is gone (terminated by the watchdog, crashed, or exited). */
	died(reason: string): void;
}

export interface Lease {
	/** The guest is let go: it stops at its next interrupt poll, its slot is reused once the worker confirms. */
	release(): void;
}

class PoolWorker {
	readonly tenants = new Map<number, Tenant>();
	/** Slots let go whose guest the worker has not yet confirmed gone. */
	private readonly leaving = new Set<number>();
	private readonly worker: Worker;
	private readonly beat = new BigInt64Array(new SharedArrayBuffer(16));
	private readonly stop = new Int32Array(new SharedArrayBuffer(4 * GUESTS_PER_WORKER));
	private watchdog: NodeJS.Timeout | undefined;
	private watchdogMs = 0;
	dead = false;

	constructor(private readonly removed: (worker: PoolWorker) => void) {
		Atomics.store(this.beat, 1, -1n);
		const workerData: QuickJsWorkerData = {
			wasmModule: quickjsModule(),
			beat: this.beat,
			stop: this.stop,
		};
		// 8 MiB of native stack: QuickJS's own recursion limit (per guest) trips before Node's does, even with a
		// neighbour's turn nested on top of a deep one.
		this.worker = new Worker(new URL("./worker.js", import.meta.url), {
			workerData,
			resourceLimits: { stackSizeMb: 8 },
		});
		this.worker.on("message", (message: { gone?: unknown }) => {
			if (typeof message?.gone === "number") this.leaving.delete(message.gone);
			if (this.tenants.size === 0 && this.leaving.size === 0) this.retire();
		});
		this.worker.on("error", (error) => this.kill(() => `QuickJS worker failed: ${error.message}`));
		this.worker.once("exit", (code) => this.kill(() => `QuickJS worker exited (code ${code})`));
	}

	get leavingCount(): number {
		return this.leaving.size;
	}

	get full(): boolean {
		return this.tenants.size + this.leaving.size >= GUESTS_PER_WORKER;
	}

	admit(tenant: Tenant, data: QuickJsGuestData, port: MessagePort): Lease {
		let slot = 0;
		while (this.tenants.has(slot) || this.leaving.has(slot)) slot++;
		this.tenants.set(slot, tenant);
		this.worker.ref();
		Atomics.store(this.stop, slot, 0);
		this.arm();
		const control: WorkerControl = { start: slot, data, port };
		this.worker.postMessage(control, [port]);
		return {
			release: () => {
				if (this.tenants.get(slot) !== tenant) return;
				this.tenants.delete(slot);
				Atomics.store(this.stop, slot, 1);
				if (!this.dead) this.leaving.add(slot);
				// Guests still leaving never keep the process alive: they stop at their next poll, or with it.
				if (this.tenants.size === 0) this.worker.unref();
				this.arm();
			},
		};
	}

	/** The watchdog runs at the longest limit among the worker's guests, and not at all without guests. */
	private arm(): void {
		const limit = Math.max(0, ...[...this.tenants.values()].map((t) => t.watchdogMs));
		if (limit === this.watchdogMs) return;
		clearInterval(this.watchdog);
		this.watchdogMs = limit;
		if (limit === 0) return;
		this.watchdog = setInterval(() => this.check(), Math.min(1_000, Math.max(50, limit / 4)));
		this.watchdog.unref();
	}

	private check(): void {
		const since = Number(Atomics.load(this.beat, 0));
		if (since === 0 || Date.now() - since <= this.watchdogMs) return;
		const culprit = this.tenants.get(Number(Atomics.load(this.beat, 1)))?.id ?? "one that has left";
		const ms = this.watchdogMs;
		this.kill((tenant) =>
			tenant.id === culprit
				? `QuickJS extension ${culprit} did not yield for ${ms} ms; its worker was terminated`
				: `QuickJS worker terminated: QuickJS extension ${culprit} on the same worker did not yield for ${ms} ms`,
		);
	}

	/** Every guest of the worker ends with its reason; the worker goes. */
	private kill(reason: (tenant: Tenant) => string): void {
		if (this.dead) return;
		this.dead = true;
		clearInterval(this.watchdog);
		this.removed(this);
		const tenants = [...this.tenants.values()];
		this.tenants.clear();
		this.leaving.clear();
		for (const tenant of tenants) tenant.died(reason(tenant));
		void this.worker.terminate();
	}

	/** No guest left: the thread and its memory go. */
	private retire(): void {
		if (this.dead) return;
		this.dead = true;
		clearInterval(this.watchdog);
		this.removed(this);
		void this.worker.terminate();
	}
}

const workers = new Set<PoolWorker>();

/** A place for one guest in a worker with a free slot (a new worker when every one is full). */
export function admitGuest(tenant: Tenant, data: QuickJsGuestData, port: MessagePort): Lease {
	let home = [...workers].find((w) => !w.full);
	if (!home) {
		home = new PoolWorker((w) => workers.delete(w));
		workers.add(home);
	}
	return home.admit(tenant, data, port);
}

/**
 * Each live worker's guests by extension id, and how many guests it still has to confirm gone (for tests and
 * diagnostics: who shares a thread with whom, and whether a guest let go has really stopped).
 */
export function quickjsWorkers(): Array<{ guests: string[]; leaving: number }> {
	return [...workers].map((w) => ({ guests: [...w.tenants.values()].map((t) => t.id), leaving: w.leavingCount }));
}
