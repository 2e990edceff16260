/**
 * A worker thread shared by up to GUESTS_PER_WORKER QuickJS extensions (pool.ts places them), each a `Guest`
 * with its own WebAssembly instance, memory bound, interrupt deadline and MessagePort. A Node worker costs about
 * 7 MiB before any QuickJS runs; a guest about 1 MiB, so sharing the thread is what makes dozens affordable.
 *
 * The scheduler keeps neighbours from waiting on each other. The thread runs one guest's turn at a time, but a
 * running guest's interrupt handler (QuickJS polls it every few thousand operations) looks at the other guests'
 * ports, at most every POLL_MS, and runs any waiting frame there and then, nested one level deep: a guest
 * computing until its deadline delays a neighbour's frame by about one poll, not by its deadline. The time a
 * nested turn takes is not charged to the guest it interrupted (each guest's deadline and watchdog run on its
 * own clock). A nested turn is not itself interrupted for a third guest (it would deepen the native stack with
 * every guest), so a third guest's frame waits for the nested turn to end.
 *
 * Between turns the thread sleeps in its event loop: each guest's frames arrive as "message" events on its port.
 */
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { Guest, type QuickJsGuestData } from "./guest.js";

export interface QuickJsWorkerData {
	/** The compiled QuickJS WebAssembly module, shared by every worker of the process. */
	wasmModule?: object;
	/**
	 * Shared with the pool: [0] when the worker last showed it was alive inside a turn (ms since the epoch;
	 * 0 between turns), [1] the slot whose turn it is (−1 when none).
	 */
	beat: BigInt64Array;
	/** Shared with the pool: 1 at a slot whose guest the host has let go (the guest stops at its next poll). */
	stop: Int32Array;
}

/** What the pool posts on the worker's own port. */
export type WorkerControl = { start: number; data: QuickJsGuestData; port: MessagePort };

/** Neighbours' ports are looked at no more often than this while a guest runs. */
const POLL_MS = 0.2;
const { wasmModule, beat, stop } = workerData as QuickJsWorkerData;
const guests = new Map<number, Guest>();
/** The guests whose turns are on the stack: the interrupted one first. */
const stack: Guest[] = [];
let lastPoll = 0;

const alive = (slot: number) => {
	Atomics.store(beat, 0, BigInt(Date.now()));
	Atomics.store(beat, 1, BigInt(slot));
};

/** One frame's turn for `guest`. */
function deliver(guest: Guest, message: unknown): void {
	if (typeof message !== "string") guest.fatal("the host sent a message that is not a frame");
	else turn(guest, () => guest.receive(message));
}

/** A turn of `guest`, with the clocks kept: a nested turn's time is taken off the guest below it. */
function turn(guest: Guest, work: () => void): void {
	if (guest.stopped) return;
	const below = stack.at(-1);
	const began = Date.now();
	stack.push(guest);
	alive(guest.slot);
	try {
		work();
	} finally {
		stack.pop();
		if (below) {
			below.stolen += Date.now() - began;
			alive(below.slot);
		} else {
			Atomics.store(beat, 0, 0n);
			Atomics.store(beat, 1, -1n);
		}
	}
}

const host = {
	poll(guest: Guest): void {
		// Outside a turn (the guest core starting) there is no turn to show alive, nor to nest in.
		const top = stack.at(-1);
		if (!top) return;
		alive(top.slot);
		if (stack.length !== 1 || top !== guest) return;
		const now = performance.now();
		if (now - lastPoll < POLL_MS) return;
		lastPoll = now;
		for (const other of guests.values()) {
			if (other === guest) continue;
			for (let m = receiveMessageOnPort(other.port); m && !other.stopped; m = receiveMessageOnPort(other.port)) {
				deliver(other, m.message);
			}
		}
	},
	stopRequested: (guest: Guest) => Atomics.load(stop, guest.slot) === 1,
};

async function admit(slot: number, data: QuickJsGuestData, port: MessagePort): Promise<void> {
	const guest = new Guest(slot, data, port, host);
	guests.set(slot, guest);
	// The host closing its end is the guest's end: the instance is dropped (no dispose: a runtime stopped
	// mid-turn may not satisfy QuickJS's own teardown checks) and collected with its memory.
	port.once("close", () => {
		guest.stopped = true;
		if (guests.get(slot) === guest) guests.delete(slot);
		// Only now may the pool give the slot (and its stop flag) to another guest.
		parentPort!.postMessage({ gone: slot });
	});
	// Listening from the start (a port that is not started never hears its peer close); frames that come
	// before the guest has loaded wait for it, in order.
	let early: unknown[] | undefined = [];
	port.on("message", (message: unknown) => {
		if (early) return void early.push(message);
		deliver(guest, message);
	});
	try {
		await guest.start(wasmModule);
	} catch (error) {
		guest.fatal(`start failed: ${(error as Error).message}`);
	}
	turn(guest, () => guest.load());
	const waiting = early;
	early = undefined;
	for (const message of waiting) deliver(guest, message);
}

parentPort!.on("message", (control: WorkerControl) => {
	void admit(control.start, control.data, control.port);
});
