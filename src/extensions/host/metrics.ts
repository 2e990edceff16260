/**
 * Per-extension live metrics: counters and a log-bucket latency histogram. Recording is O(1) with no
 * allocation (a bucket index from one Math.log2, an increment in a preallocated array), so the host can record
 * every invocation on its hot path; reading the percentiles walks the fixed buckets.
 *
 * Buckets are 1/8 of a power of two wide (≈9%), from 1 µs up to ~4.5 minutes; a percentile is its bucket's
 * geometric middle, clamped to the exact minimum and maximum seen, so it is within ≈4.5% of the true value.
 */

const SUB_BUCKETS = 8;
/** log2 of the smallest bucket's lower bound in milliseconds (2^-10 ms ≈ 1 µs). */
const MIN_LOG2 = -10;
const BUCKETS = 28 * SUB_BUCKETS; // 2^-10 .. 2^18 ms

export interface LastError {
	message: string;
	/** Date.now() when it happened. */
	at: number;
}

export interface MetricsSnapshot {
	invocations: number;
	errors: number;
	/** Milliseconds; absent until something was recorded. */
	p50Ms?: number;
	p99Ms?: number;
	maxMs?: number;
	/** Times a new generation replaced a running instance of this extension (a /reload). */
	restarts: number;
	/** Times an instance died under the session (its process exited, a protocol violation). */
	crashes: number;
	lastError?: LastError;
}

export class ExtensionMetrics {
	invocations = 0;
	errors = 0;
	restarts = 0;
	crashes = 0;
	lastError: LastError | undefined;
	private readonly buckets = new Uint32Array(BUCKETS);
	private min = Number.POSITIVE_INFINITY;
	private max = 0;

	/** One finished invocation; `error` when it failed (a cancellation by the caller is not the extension's). */
	record(ms: number, error?: Error): void {
		this.invocations++;
		if (ms < this.min) this.min = ms;
		if (ms > this.max) this.max = ms;
		const index = Math.floor((Math.log2(ms) - MIN_LOG2) * SUB_BUCKETS);
		// NaN and ≤0 (log2 → -Infinity) fall in the first bucket, beyond the range in the last.
		this.buckets[index >= 0 ? (index < BUCKETS ? index : BUCKETS - 1) : 0]!++;
		if (error !== undefined && (error as { code?: unknown }).code !== "cancelled") this.failed(error.message);
	}

	/** A failure that is not an invocation's answer (an event handler threw, the instance crashed). */
	failed(message: string, at = Date.now()): void {
		this.errors++;
		this.lastError = { message, at };
	}

	crashed(reason: string): void {
		this.crashes++;
		this.lastError = { message: reason, at: Date.now() };
	}

	/** The latency at quantile `q` (0..1) in milliseconds, or undefined with nothing recorded. */
	percentile(q: number): number | undefined {
		let total = 0;
		for (let i = 0; i < BUCKETS; i++) total += this.buckets[i]!;
		if (total === 0) return undefined;
		// The nearest-rank sample: the smallest value with at least q of the samples at or below it.
		const rank = Math.max(1, Math.ceil(q * total));
		// The ends are known exactly.
		if (rank === total) return this.max;
		if (rank === 1) return this.min;
		let seen = 0;
		for (let i = 0; i < BUCKETS; i++) {
			seen += this.buckets[i]!;
			if (seen >= rank) {
				const middle = 2 ** ((i + 0.5) / SUB_BUCKETS + MIN_LOG2);
				return Math.min(this.max, Math.max(this.min, middle));
			}
		}
		return this.max;
	}

	snapshot(): MetricsSnapshot {
		const p50 = this.percentile(0.5);
		const p99 = this.percentile(0.99);
		return {
			invocations: this.invocations,
			errors: this.errors,
			...(p50 !== undefined ? { p50Ms: round(p50) } : {}),
			...(p99 !== undefined ? { p99Ms: round(p99) } : {}),
			...(this.invocations > 0 ? { maxMs: round(this.max) } : {}),
			restarts: this.restarts,
			crashes: this.crashes,
			...(this.lastError ? { lastError: { ...this.lastError } } : {}),
		};
	}
}

/** Three significant decimals of a millisecond are more than the buckets resolve. */
function round(ms: number): number {
	return Math.round(ms * 1000) / 1000;
}
