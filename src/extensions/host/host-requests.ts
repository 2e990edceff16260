/**
 * The host's requests to one extension that await their responses: ids, deadlines, cancellation and the
 * metrics of invocations. An instance (instance.ts) owns one; it decides when a frame is a response or an
 * update, this decides what that settles.
 */
import type { HostFrame, HostRequest, ProtocolResult } from "../protocol/frames.js";
import { ExtensionError } from "./errors.js";
import type { ExtensionMetrics } from "./metrics.js";

/** Where the requests go: the instance's channel. */
export interface RequestPort {
	/** Sends a frame; throws when it cannot (too large, channel closed). */
	send(frame: HostFrame): void;
	/** Sends a frame if it still can: a cancel to an extension that is gone is nothing to report. */
	trySend(frame: HostFrame): void;
}

/** What a caller may attach to a request (an invocation's options pass through as they are). */
export interface RequestOptions {
	signal?: AbortSignal;
	onUpdate?: (value: unknown) => void;
}

/** One host request awaiting its response. */
export class Pending {
	onAbort: (() => void) | undefined;
	constructor(
		readonly id: string,
		readonly resolve: (value: unknown) => void,
		readonly reject: (error: Error) => void,
		readonly timeoutMs: number,
		/** `performance.now()` time past which the request times out. */
		readonly deadline: number,
		readonly signal: AbortSignal | undefined,
		readonly onUpdate: ((value: unknown) => void) | undefined,
		readonly metered: boolean,
	) {}
}

/** setTimeout's longest delay; a later deadline is swept at this distance and re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class HostRequests {
	private readonly pending = new Map<string, Pending>();
	/**
	 * One timer for every pending request's deadline instead of one timer each: armed at the earliest
	 * deadline, left running when requests settle (and unref'd while none is pending, so it never keeps the
	 * process alive on its own), swept and re-armed when it fires.
	 */
	private deadlineTimer: NodeJS.Timeout | undefined;
	private deadlineAt = Number.POSITIVE_INFINITY;
	/**
	 * Request ids are this counter: they need only be unique among one instance's own requests (one
	 * extension, one generation), and a short id is less to encode and parse on both sides of every call.
	 */
	private count = 0;

	constructor(
		private readonly extensionId: string,
		private readonly generation: number,
		private readonly port: RequestPort,
		private readonly metrics: ExtensionMetrics | undefined,
	) {}

	nextId(): string {
		return `h${++this.count}`;
	}

	/** The request `id` still awaits its response (undefined once answered, cancelled or timed out). */
	get(id: string): Pending | undefined {
		return this.pending.get(id);
	}

	/**
	 * Sends a request; resolves with its response's value, rejects with its failure, timeout or cancellation.
	 * `metered`: counted and timed in the extension's metrics (invocations are; the handshake's requests are not).
	 */
	send(request: HostRequest, timeoutMs: number, options: RequestOptions = {}, metered = false): Promise<unknown> {
		const id = this.nextId();
		const { signal, onUpdate } = options;
		let entry!: Pending;
		const promise = new Promise<unknown>((resolve, reject) => {
			entry = new Pending(id, resolve, reject, timeoutMs, performance.now() + timeoutMs, signal, onUpdate, metered);
		});
		this.pending.set(id, entry);
		if (signal) {
			const onAbort = () => this.finish(entry, new ExtensionError("cancelled", "the invocation was cancelled"), true);
			if (signal.aborted) {
				onAbort();
				return promise;
			}
			entry.onAbort = onAbort;
			signal.addEventListener("abort", onAbort, { once: true });
		}
		this.scheduleDeadline(entry.deadline);
		try {
			this.port.send({ type: "request", id, generation: this.generation, request });
		} catch (error) {
			this.finish(entry, error instanceof Error ? error : new Error(String(error)));
		}
		return promise;
	}

	/** The extension's answer to `entry`. */
	answer(entry: Pending, result: ProtocolResult): void {
		if (result.status === "success") this.finish(entry, undefined, false, result.value ?? null);
		else this.finish(entry, new ExtensionError(result.error.code, result.error.message));
	}

	/** Fails every pending request with `error` and stops the deadline timer (the instance stopped). */
	failAll(error: Error): void {
		for (const entry of [...this.pending.values()]) this.finish(entry, error);
		clearTimeout(this.deadlineTimer);
		this.deadlineTimer = undefined;
		this.deadlineAt = Number.POSITIVE_INFINITY;
	}

	/** Settles a pending request once: with `error`, else with `value`; `cancel` tells the extension. */
	private finish(entry: Pending, error: Error | undefined, cancel = false, value?: unknown): void {
		if (!this.pending.delete(entry.id)) return;
		if (this.pending.size === 0) this.deadlineTimer?.unref();
		if (entry.onAbort) entry.signal!.removeEventListener("abort", entry.onAbort);
		if (cancel) this.port.trySend({ type: "cancel", id: entry.id });
		// The start time is the deadline less the timeout: nothing more to keep per request.
		if (entry.metered) this.metrics?.record(performance.now() - entry.deadline + entry.timeoutMs, error);
		if (error) entry.reject(error);
		else entry.resolve(value);
	}

	private scheduleDeadline(deadline: number): void {
		if (deadline < this.deadlineAt) {
			clearTimeout(this.deadlineTimer);
			this.deadlineAt = deadline;
			const delay = Math.min(MAX_TIMER_MS, Math.max(0, deadline - performance.now()));
			this.deadlineTimer = setTimeout(this.sweepDeadlines, delay);
		} else if (this.pending.size === 1) {
			this.deadlineTimer?.ref();
		}
	}

	/** Times out every request past its deadline and re-arms for the next one. */
	private readonly sweepDeadlines = (): void => {
		this.deadlineTimer = undefined;
		this.deadlineAt = Number.POSITIVE_INFINITY;
		const now = performance.now();
		const expired: Pending[] = [];
		let next = Number.POSITIVE_INFINITY;
		for (const entry of this.pending.values()) {
			if (entry.deadline <= now) expired.push(entry);
			else if (entry.deadline < next) next = entry.deadline;
		}
		for (const entry of expired) {
			this.finish(
				entry,
				new ExtensionError("timeout", `extension ${this.extensionId} did not answer within ${entry.timeoutMs} ms`),
				true,
			);
		}
		if (next !== Number.POSITIVE_INFINITY && this.pending.size > 0) this.scheduleDeadline(next);
	};
}
