/**
 * Events gathered and handed over once per animation frame: a burst of stream events (a model writing tokens,
 * a replay after a reconnect) becomes one state update and one render per frame instead of one per event.
 * A hidden tab gets no frames, so a timer flushes too.
 */
const FALLBACK_MS = 100;

export interface FrameBatch<T> {
	push(item: T): void;
	/** Hands over what is waiting now. */
	flush(): void;
	/** Drops what is waiting (the receiver is gone). */
	cancel(): void;
}

export function frameBatch<T>(deliver: (items: T[]) => void): FrameBatch<T> {
	let items: T[] = [];
	let frame: number | undefined;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const clear = () => {
		if (frame !== undefined) cancelAnimationFrame(frame);
		clearTimeout(timer);
		frame = undefined;
		timer = undefined;
	};
	const flush = () => {
		clear();
		if (items.length === 0) return;
		const out = items;
		items = [];
		deliver(out);
	};
	return {
		push(item) {
			items.push(item);
			if (frame !== undefined) return;
			frame = requestAnimationFrame(flush);
			timer = setTimeout(flush, FALLBACK_MS);
		},
		flush,
		cancel() {
			clear();
			items = [];
		},
	};
}
