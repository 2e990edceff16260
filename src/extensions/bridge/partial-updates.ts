/**
 * A tool call's partial updates as pi (and through it the terminal and every chamber reader) sees them: the
 * newest wins, at most one every `PARTIAL_UPDATE_INTERVAL_MS`, and only while the extension's UI budget allows
 * it. An update is progress, not data the model reads: skipping one the next replaces loses nothing, and a tool
 * that calls `onUpdate` in a loop no longer makes an event per call for every reader. The newest update not yet
 * delivered when the call ends is delivered before its result, so the last progress shown is never lost.
 */

export const PARTIAL_UPDATE_INTERVAL_MS = 250;

/**
 * `deliver(value, final)` shows one update, or answers false when it may not now (the budget is spent): the
 * value then waits for the next interval, unless a newer one replaces it. `final` is the flush at the call's
 * end, which is always delivered.
 */
export type Deliver<T> = (value: T, final: boolean) => boolean;

export class PartialUpdates<T> {
	private pending: { value: T } | undefined;
	private timer: NodeJS.Timeout | undefined;
	private last = Number.NEGATIVE_INFINITY;
	private closed = false;

	constructor(
		private readonly deliver: Deliver<T>,
		private readonly intervalMs = PARTIAL_UPDATE_INTERVAL_MS,
	) {}

	push(value: T): void {
		if (this.closed) return;
		this.pending = { value };
		if (this.timer === undefined) this.tick();
	}

	/** The call ended: the newest update not delivered yet goes now (its result follows), nothing after it. */
	close(): void {
		if (this.closed) return;
		this.closed = true;
		clearTimeout(this.timer);
		this.timer = undefined;
		const pending = this.pending;
		this.pending = undefined;
		if (pending) this.deliver(pending.value, true);
	}

	private readonly tick = (): void => {
		this.timer = undefined;
		const pending = this.pending;
		if (!pending || this.closed) return;
		const wait = this.last + this.intervalMs - performance.now();
		if (wait > 0) {
			this.timer = setTimeout(this.tick, wait);
			return;
		}
		this.last = performance.now();
		if (!this.deliver(pending.value, false)) {
			this.timer = setTimeout(this.tick, this.intervalMs);
			return;
		}
		if (this.pending === pending) this.pending = undefined;
	};
}
