/**
 * A worker thread shared by up to GUESTS_PER_WORKER QuickJS extensions (pool.ts places them), each a `Guest`
 * with its own WebAssembly instance, memory bound, interrupt deadline and MessagePort. A Node worker costs about
 * 7 MiB before any QuickJS runs; a guest about 1 MiB, so sharing the thread is what makes dozens affordable.
 *
 * The scheduler keeps neighbours from waiting on each other. The thread runs one guest's turn at a time, but a
 * running guest's interrupt handler (QuickJS polls it every few thousand operations) looks at the other guests'
 * ports, at most every POLL_MS, and runs any waiting frame there and then, nested one level deep: a guest
 * spinning until its deadline delays a neighbour's frame by about half a millisecond (bench:
 * quickjs.roundtrip.beside-spinner), not by its deadline. The time a
 * nested turn takes is not charged to the guest it interrupted (each guest's deadline and watchdog run on its
 * own clock). A nested turn is not itself interrupted for a third guest (it would deepen the native stack with
 * every guest), so a third guest's frame waits for the nested turn to end.
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
	/** Whether to linger after a turn (answer-wait.ts `spinningPays`, decided once in the host's thread). */
	linger: boolean;
	/** Shared by every worker: [0] the number of the worker the host last gave a frame to, 0 for any other channel (answer-wait.ts `lastTarget`). */
	lastTarget: Int32Array;
	/** This worker's number in `lastTarget`. */
	number: number;
}

/** What the pool posts on the worker's own port. */
export type WorkerControl = { start: number; data: QuickJsGuestData; port: MessagePort };

/** Neighbours' ports are looked at no more often than this while a guest runs. */
const POLL_MS = 0.2;
/**
 * After a turn, the thread keeps looking at its guests' ports this long before it goes back to sleep in its
 * event loop. Waking a sleeping thread costs tens of microseconds (on a virtual machine, a halted vCPU's
 * wake-up); a call that follows its predecessor within the window is picked up without one.
 */
const LINGER_MS = 0.2;
/** A thread that keeps finding frames still returns to its event loop this often (admissions, closes). */
const LINGER_MAX_MS = 5;

const { wasmModule, beat, stop, linger: lingering, lastTarget, number } = workerData as QuickJsWorkerData;
const guests = new Map<number, Guest>();
/** The guests that have loaded: their frames are delivered as they come (earlier ones wait in `admit`). */
const loaded: Guest[] = [];
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

/**
 * Looks at every loaded guest's port until none has had a frame for LINGER_MS (or LINGER_MAX_MS have passed),
 * delivering each frame found: the same order and the same turns as the event loop's delivery, without the
 * thread falling asleep between calls that come one after the other. Not once the host has turned to another
 * worker: that worker needs the CPU this loop would hold.
 */
function linger(): void {
	if (stack.length > 0 || !lingering) return;
	const began = performance.now();
	let idleSince = began;
	for (
		let now = began;
		now - idleSince < LINGER_MS && now - began < LINGER_MAX_MS && Atomics.load(lastTarget, 0) === number;
		now = performance.now()
	) {
		for (const guest of loaded) {
			const next = guest.stopped ? undefined : receiveMessageOnPort(guest.port);
			if (!next) continue;
			deliver(guest, next.message);
			idleSince = performance.now();
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
		if (loaded.includes(guest)) loaded.splice(loaded.indexOf(guest), 1);
		// Only now may the pool give the slot (and its stop flag) to another guest.
		parentPort!.postMessage({ gone: slot });
	});
	// Listening from the start (a port that is not started never hears its peer close); frames that come
	// before the guest has loaded wait for it, in order.
	let early: unknown[] | undefined = [];
	port.on("message", (message: unknown) => {
		if (early) return void early.push(message);
		deliver(guest, message);
		linger();
	});
	try {
		await guest.start(wasmModule);
	} catch (error) {
		guest.fatal(`start failed: ${(error as Error).message}`);
	}
	turn(guest, () => guest.load());
	const waiting = early;
	early = undefined;
	loaded.push(guest);
	for (const message of waiting) deliver(guest, message);
	linger();
}

parentPort!.on("message", (control: WorkerControl) => {
	void admit(control.start, control.data, control.port);
});
