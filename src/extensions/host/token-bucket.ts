/**
 * A token bucket: `burst` tokens, refilled at `perSecond`. What a flood gets is the burst, then the rate;
 * what it does not get is refused at once, never queued.
 */
export type Clock = () => number;

export class TokenBucket {
	private tokens: number;
	private last: number;

	constructor(
		readonly perSecond: number,
		readonly burst: number,
		private readonly clock: Clock = () => performance.now(),
	) {
		this.tokens = burst;
		this.last = clock();
	}

	/** Takes `cost` tokens if there are that many; a refusal takes nothing. */
	take(cost = 1): boolean {
		this.refill();
		if (this.tokens < cost) return false;
		this.tokens -= cost;
		return true;
	}

	/** Takes `cost` tokens even if there are fewer: what cannot be refused is still paid for, by waiting later. */
	spend(cost: number): void {
		this.refill();
		this.tokens -= cost;
	}

	private refill(): void {
		const now = this.clock();
		this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.perSecond);
		this.last = now;
	}
}
