/**
 * The host's short wait for an extension's answer. Most of a quick call's round trip is not work but waking
 * threads: the host's thread falls asleep in its event loop after sending a request, and the answer has to wake
 * it (on a virtual machine, a halted vCPU's wake-up: tens of microseconds, more than the call itself). So after
 * a request or a response goes out, the host looks for the answer itself, without sleeping, for at most
 * ANSWER_WAIT_MS, and takes it if it comes; otherwise the event loop delivers it as before.
 *
 * One wait serves every channel at once (an event fanned out to ten extensions waits once, not ten times), it
 * runs in a microtask (never inside the sender's own code, so no frame arrives in the middle of it), and it
 * never runs on a single CPU, where the host spinning would only keep the extension from answering.
 */
import { readSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";

/** A channel that can take what its extension has sent so far without waiting. */
export interface AnswerSource {
	/** `took`: it delivered what had come; `nothing` yet; `closed`: nothing more can come this way. */
	takeWaiting(): "took" | "nothing" | "closed";
	/**
	 * Its extension goes on lingering after an answer even once the host has turned to another extension (a
	 * process's kit or plugin host cannot know); a QuickJS worker stops as soon as the host does (`lastTarget`).
	 */
	readonly lingersRegardless: boolean;
}

const setting = process.env.PIER_ANSWER_WAIT;
/**
 * Long enough for a quick call's answer; a long call costs the host's loop this much, once per request.
 * `PIER_ANSWER_WAIT=<ms>` sets it (the tests make it long enough that every answer is taken).
 */
export const ANSWER_WAIT_MS = setting && Number(setting) > 0 ? Number(setting) : 0.15;

/**
 * Whether waiting without sleeping can pay here: not on one CPU, where the waiter only keeps the other side from
 * running. The QuickJS worker's linger (worker.ts) asks the same. `PIER_ANSWER_WAIT=off` turns both off.
 */
export const spinningPays = availableParallelism() > 1 && setting !== "off";
/**
 * The previous answer's extension lingers after answering (the kit, the plugin host, a QuickJS worker), up to
 * 0.2 ms on a CPU of its own. When the host turns to another extension, its waiting would hold the only other
 * CPU of a two-CPU machine, and the extension it waits for could not run until one of the two gave up: calls
 * alternating between two process extensions took 250–320 µs with the wait, 80–195 µs without it. So on fewer
 * than three CPUs the host does not wait when it has just turned away from an extension that lingers regardless.
 */
const cpusForEveryone = availableParallelism() >= 3;
let previous: AnswerSource | undefined;
const expecting = new Set<AnswerSource>();
let scheduled = false;
let taken = 0;

/**
 * Who the host last gave a frame to, shared with every QuickJS worker: the worker's number, or 0 for any other
 * channel. A worker lingering after its turn (quickjs/worker.ts) stops the moment the host turns elsewhere: on
 * two CPUs the host waiting for an answer and a worker lingering for nothing fill both, and the thread that has
 * the frame would wait for a CPU until the linger ran out (a fan-out to guests on two workers cost about 1 ms per
 * crossing, bench quickjs.fanout.10).
 */
export const lastTarget = new Int32Array(new SharedArrayBuffer(4));

/** Every channel's send: written only when it changes (lingering workers read it in their loop). */
export function turnTo(target: number): void {
	if (Atomics.load(lastTarget, 0) !== target) Atomics.store(lastTarget, 0, target);
}

/** How many answers a wait has taken in this process (diagnostics, and the tests that prove the path runs). */
export const answersTaken = (): number => taken;

/** What one look at a pipe may take (a pipe's default capacity). */
const scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * One look at a non-blocking pipe fd (libuv keeps its end of one so: empty is `EAGAIN`, not a wait): a copy of
 * what it holds now, `empty`, or `end` (end of file or an error, both left to the fd's stream to report). The
 * process channel's wait and the plugin host's linger read with it; the caller makes sure the stream holds
 * nothing of its own, so the order of what arrives cannot change.
 */
export function readNow(fd: number): Buffer | "empty" | "end" {
	let read: number;
	// An empty pipe is an exception from readSync, and capturing its stack was half of each look's cost (2 of
	// 4 µs here); nothing reads the stack of an EAGAIN.
	const limit = Error.stackTraceLimit;
	try {
		Error.stackTraceLimit = 0;
	} catch {
		// Error is frozen (an in-process extension may harden the realm): the look just costs more.
	}
	try {
		read = readSync(fd, scratch, 0, scratch.length, null);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EAGAIN" ? "empty" : "end";
	} finally {
		if (Error.stackTraceLimit !== limit) Error.stackTraceLimit = limit;
	}
	return read === 0 ? "end" : Buffer.from(scratch.subarray(0, read));
}

/** `source` was just sent something it will answer: look for the answer before the event loop sleeps. */
export function expectAnswer(source: AnswerSource): void {
	if (!spinningPays) return;
	const turned = previous !== undefined && previous !== source && previous.lingersRegardless;
	previous = source;
	if (turned && !cpusForEveryone) return;
	expecting.add(source);
	if (scheduled) return;
	scheduled = true;
	queueMicrotask(wait);
}

function wait(): void {
	const until = performance.now() + ANSWER_WAIT_MS;
	try {
		while (expecting.size > 0 && performance.now() < until) {
			for (const source of expecting) {
				const take = source.takeWaiting();
				if (take === "nothing") continue;
				expecting.delete(source);
				if (take === "took") taken++;
			}
		}
	} finally {
		// Whatever a delivery did, the next request gets its own wait.
		expecting.clear();
		scheduled = false;
	}
}
