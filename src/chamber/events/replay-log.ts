/**
 * The retained suffix of one stream's events, bounded by count and by encoded bytes (PiChamber's window:
 * 1,024 events / 8 MiB). Eviction drops whole events, oldest first, so what remains is always contiguous:
 * a cursor inside it replays exactly what it missed; a cursor before it must resync from a snapshot.
 */
export const REPLAY_MAX_EVENTS = 1024;
export const REPLAY_MAX_BYTES = 8 * 1024 * 1024;

interface Retained {
	seq: number;
	frame: string;
	bytes: number;
}

/** What an evicted slot holds until the next compaction: nothing of the event it held. */
const EVICTED: Retained = { seq: 0, frame: "", bytes: 0 };

export class ReplayLog {
	private readonly events: Retained[] = [];
	private head = 0;
	private bytes = 0;

	constructor(
		readonly maxEvents = REPLAY_MAX_EVENTS,
		readonly maxBytes = REPLAY_MAX_BYTES,
	) {}

	get size(): number {
		return this.events.length - this.head;
	}

	get retainedBytes(): number {
		return this.bytes;
	}

	/** Slots the log's array holds, evicted ones not yet compacted away included (at most about 2 × maxEvents). */
	get slots(): number {
		return this.events.length;
	}

	/** Keeps an encoded event. One larger than the whole budget empties the log: a hole would break contiguity. */
	append(seq: number, frame: string): void {
		const bytes = Buffer.byteLength(frame);
		if (bytes > this.maxBytes) {
			this.events.length = 0;
			this.head = 0;
			this.bytes = 0;
			return;
		}
		this.events.push({ seq, frame, bytes });
		this.bytes += bytes;
		while (this.size > this.maxEvents || this.bytes > this.maxBytes) {
			this.bytes -= this.events[this.head]!.bytes;
			// The frame goes now, not at the compaction: a soak of 20 sessions kept 5 × the window in memory.
			this.events[this.head] = EVICTED;
			this.head++;
		}
		// Compact once the evicted slots are as many as the window, instead of shifting on every eviction
		// (O(1) amortised: each compaction moves at most as many slots as it frees).
		if (this.head >= Math.max(64, this.maxEvents) && this.head * 2 > this.events.length) {
			this.events.splice(0, this.head);
			this.head = 0;
		}
	}

	/**
	 * The frames after `since`, or undefined when they are no longer all here (the caller sends a snapshot).
	 * `latest` is the stream's newest sequence: a cursor from the future has no basis either.
	 */
	after(since: number, latest: number): string[] | undefined {
		if (!Number.isSafeInteger(since) || since < 0 || since > latest) return undefined;
		if (since === latest) return [];
		const oldest = this.events[this.head]?.seq;
		if (oldest === undefined || since < oldest - 1) return undefined;
		const frames: string[] = [];
		for (let i = this.head; i < this.events.length; i++) {
			const event = this.events[i]!;
			if (event.seq > since) frames.push(event.frame);
		}
		return frames;
	}
}
