/**
 * Slows password guessing: at most `limit` attempts per client key reach the password check in any
 * `windowMs`. A sliding log (the last `limit` attempt times per key) rather than a fixed window, so a burst
 * straddling a window boundary cannot get twice the budget.
 *
 * An attempt is counted when it is let through, before the (asynchronous) hash: counting after the hash let
 * 200 simultaneous guesses all pass the check while none had been counted yet. A correct password refunds
 * its own slot, so signing in does not spend the user's budget.
 */

export interface RateLimiterOptions {
	/** Failures allowed per window; the next attempt is refused. Default 5. */
	limit?: number;
	/** Default 60 s. */
	windowMs?: number;
	/** Keys kept at most. Default 10,000. */
	maxKeys?: number;
	now?: () => number;
}

export type RateLimitVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };
export type Reservation = { allowed: true; refund(): void } | { allowed: false; retryAfterSeconds: number };

export class LoginRateLimiter {
	private readonly limit: number;
	private readonly windowMs: number;
	private readonly maxKeys: number;
	private readonly now: () => number;
	// Map order is "least recently attempted first" because an attempt re-inserts its key; eviction relies on it.
	private readonly failures = new Map<string, number[]>();

	constructor(options: RateLimiterOptions = {}) {
		this.limit = options.limit ?? 5;
		this.windowMs = options.windowMs ?? 60_000;
		this.maxKeys = options.maxKeys ?? 10_000;
		this.now = options.now ?? Date.now;
		if (!(this.limit >= 1 && this.windowMs > 0 && this.maxKeys >= 1)) {
			throw new RangeError("rate limiter needs limit >= 1, windowMs > 0 and maxKeys >= 1");
		}
	}

	/** Whether `key` may attempt a login now, without counting anything. */
	check(key: string): RateLimitVerdict {
		const now = this.now();
		const times = this.recent(key, now);
		if (times.length < this.limit) return { allowed: true };
		// The oldest attempt in the log is the one whose expiry frees a slot.
		const oldest = times[times.length - this.limit] ?? now;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
	}

	/**
	 * Checks and counts in one synchronous step, before the password is looked at: concurrent attempts see each
	 * other's slots. `refund()` (for a correct password) gives the slot back; it cannot restore older failures.
	 */
	reserve(key: string): Reservation {
		const verdict = this.check(key);
		if (!verdict.allowed) return verdict;
		const stamp = this.record(key);
		let refunded = false;
		return {
			allowed: true,
			refund: () => {
				if (refunded) return;
				refunded = true;
				const times = this.failures.get(key);
				const at = times?.lastIndexOf(stamp) ?? -1;
				if (!times || at < 0) return;
				times.splice(at, 1);
				if (times.length === 0) this.failures.delete(key);
			},
		};
	}

	/** Counts a failed attempt without a reservation (tests and callers that check elsewhere). */
	fail(key: string): void {
		this.record(key);
	}

	private record(key: string): number {
		const now = this.now();
		const times = this.recent(key, now);
		times.push(now);
		if (times.length > this.limit) times.splice(0, times.length - this.limit);
		this.failures.delete(key);
		this.failures.set(key, times);
		this.evict(now);
		return now;
	}

	/** Keys currently tracked (for tests and diagnostics). */
	get size(): number {
		return this.failures.size;
	}

	private recent(key: string, now: number): number[] {
		const times = this.failures.get(key);
		if (!times) return [];
		const fresh = times.filter((t) => now - t < this.windowMs);
		if (fresh.length === 0) this.failures.delete(key);
		else if (fresh.length !== times.length) this.failures.set(key, fresh);
		return fresh;
	}

	private evict(now: number): void {
		for (const [key, times] of this.failures) {
			const newest = times[times.length - 1] ?? 0;
			const expired = now - newest >= this.windowMs;
			// Over the cap, a live key is dropped too: memory stays bounded at the price of forgetting the
			// least recent offender, which only matters to an attacker spread over more than maxKeys addresses.
			if (!expired && this.failures.size <= this.maxKeys) break;
			this.failures.delete(key);
		}
	}
}

/**
 * Bounds the scrypt work in flight across all clients: each verify holds 16 MiB and a thread-pool thread for
 * tens of milliseconds, and the per-client limit does nothing against many addresses. Past `maxRunning`,
 * callers wait in a bounded queue; past that they are told to come back (`undefined`).
 */
export class WorkGate {
	private running = 0;
	private readonly waiting: (() => void)[] = [];

	constructor(
		private readonly maxRunning = 2,
		private readonly maxWaiting = 32,
	) {}

	/** Runs `work` when a slot is free; `undefined` without running it when the queue is full. */
	async run<T>(work: () => Promise<T>): Promise<T | undefined> {
		if (this.running >= this.maxRunning) {
			if (this.waiting.length >= this.maxWaiting) return undefined;
			await new Promise<void>((go) => this.waiting.push(go));
		} else {
			this.running++;
		}
		try {
			return await work();
		} finally {
			// A waiter inherits the slot, so `running` never dips below what is really running.
			const next = this.waiting.shift();
			if (next) next();
			else this.running--;
		}
	}
}
