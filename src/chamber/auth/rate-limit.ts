/**
 * Slows password guessing: at most `limit` failures per client key in any `windowMs`. A sliding log (the
 * last `limit` failure times per key) rather than a fixed window, so a burst straddling a window boundary
 * cannot get twice the budget.
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

export class LoginRateLimiter {
	private readonly limit: number;
	private readonly windowMs: number;
	private readonly maxKeys: number;
	private readonly now: () => number;
	// Map order is "least recently failed first" because a failure re-inserts its key; eviction relies on it.
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

	/** Whether `key` may attempt a login now. Checked before the password, so a blocked client learns nothing. */
	check(key: string): RateLimitVerdict {
		const now = this.now();
		const times = this.recent(key, now);
		if (times.length < this.limit) return { allowed: true };
		// The oldest failure in the log is the one whose expiry frees a slot.
		const oldest = times[times.length - this.limit] ?? now;
		return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
	}

	/** Counts a failed attempt. Successes are not recorded: they neither spend nor restore anyone's budget. */
	fail(key: string): void {
		const now = this.now();
		const times = this.recent(key, now);
		times.push(now);
		if (times.length > this.limit) times.splice(0, times.length - this.limit);
		this.failures.delete(key);
		this.failures.set(key, times);
		this.evict(now);
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
