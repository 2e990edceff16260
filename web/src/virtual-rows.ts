/**
 * The transcript's windowing: only the rows near the viewport are in the DOM, the rest stand as padding of the
 * measured (or, until seen, estimated) height. The reader's place is kept as an anchor, a row id and a distance
 * into it, so rows measured taller than guessed, earlier rows arriving above, or a row growing keep what is on
 * screen in place; at the bottom ("stuck") the view follows new content instead.
 */
import type { RefObject } from "preact";
import { useCallback, useLayoutEffect, useRef, useState } from "preact/hooks";

/** Within this many pixels of the bottom the view follows new content; further up the reader is reading. */
const STICK_PX = 80;
/** Rendered beyond each edge of the viewport, so a fast scroll rarely shows a gap. */
const OVERSCAN_PX = 1000;
/** A guess for a row not measured yet (replaced by the running mean of measured rows). */
const ESTIMATE_PX = 120;
/** Shorter transcripts are drawn whole: windowing buys nothing there. */
export const WINDOW_FROM_ROWS = 150;
const MAX_PASSES = 4;

interface Anchor {
	id: string;
	/** Pixels from the row's top to the viewport's top. */
	delta: number;
}

export interface VirtualRows {
	start: number;
	end: number;
	/** Padding standing in for the rows before `start` and after `end`. */
	padTop: number;
	padBottom: number;
	atBottom: boolean;
	onScroll: () => void;
	scrollToBottom: () => void;
	/** Puts row `id`'s top near the top of the viewport. */
	scrollToRow: (id: string) => void;
	/** The pixel offset of each row in the list, and the total height after the last (length ids + 1). */
	offsets: readonly number[];
}

interface Model {
	heights: Map<string, number>;
	measuredSum: number;
	measuredCount: number;
	stick: boolean;
	anchor: Anchor | undefined;
	ids: readonly string[];
	offsets: number[];
	index: Map<string, number>;
	rendered: { start: number; end: number };
	frame: number | undefined;
	/** Redraws in a row caused by measuring alone: capped, so rows that never settle cannot hang the page. */
	passes: number;
	/** scrollTop as this code last saw or set it: a different one means a scroll whose event has not come yet. */
	lastTop: number | undefined;
	/** Bumped when a measured height changes: the offsets are rebuilt only then or when the rows change. */
	heightsVersion: number;
	offsetsVersion: number;
}

/** First index whose row ends below `y`. */
function rowAt(offsets: readonly number[], y: number): number {
	let lo = 0;
	let hi = offsets.length - 2;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if ((offsets[mid + 1] ?? 0) <= y) lo = mid + 1;
		else hi = mid;
	}
	return Math.max(0, lo);
}

/** The reader's place from the scroll position, against the offsets the DOM was drawn with. */
function noteScroll(m: Model, el: HTMLElement, listTop: number): void {
	m.stick = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
	const top = el.scrollTop - listTop;
	const i = rowAt(m.offsets, top);
	const id = m.ids[i];
	m.anchor = id === undefined ? undefined : { id, delta: top - (m.offsets[i] as number) };
	m.lastTop = el.scrollTop;
}

export function useVirtualRows(
	ids: readonly string[],
	scroller: RefObject<HTMLElement>,
	list: RefObject<HTMLElement>,
	onNearTop: () => void,
): VirtualRows {
	const [, setTick] = useState(0);
	const rerender = useCallback(() => setTick((t) => t + 1), []);
	const m = useRef<Model>({
		heights: new Map(),
		measuredSum: 0,
		measuredCount: 0,
		stick: true,
		anchor: undefined,
		ids: [],
		offsets: [0],
		index: new Map(),
		rendered: { start: 0, end: 0 },
		frame: undefined,
		passes: 0,
		lastTop: undefined,
		heightsVersion: 0,
		offsetsVersion: -1,
	}).current;
	const [atBottom, setAtBottom] = useState(true);
	const nearTop = useRef(onNearTop);
	nearTop.current = onNearTop;

	// A scroll can land between a redraw and its scroll event: read it now, or this redraw would undo it.
	const now = scroller.current;
	if (now && m.lastTop !== undefined && Math.abs(now.scrollTop - m.lastTop) >= 1) {
		noteScroll(m, now, list.current?.offsetTop ?? 0);
	}
	const estimate = m.measuredCount ? m.measuredSum / m.measuredCount : ESTIMATE_PX;
	// Most redraws only move the window: the offsets and the index over every row are rebuilt only when the rows
	// or a measured height changed (the scroll profile of 5,000 rows spent 6% of its time rebuilding them).
	if (ids !== m.ids) {
		const index = new Map<string, number>();
		for (let i = 0; i < ids.length; i++) index.set(ids[i] as string, i);
		m.index = index;
		m.offsetsVersion = -1;
	}
	if (ids !== m.ids || m.offsetsVersion !== m.heightsVersion) {
		const built = new Array<number>(ids.length + 1);
		built[0] = 0;
		for (let i = 0; i < ids.length; i++)
			built[i + 1] = (built[i] as number) + (m.heights.get(ids[i] as string) ?? estimate);
		m.offsets = built;
		m.offsetsVersion = m.heightsVersion;
	}
	m.ids = ids;
	const offsets = m.offsets;
	const index = m.index;
	const total = offsets[ids.length] as number;

	let start = 0;
	let end = ids.length;
	if (ids.length >= WINDOW_FROM_ROWS) {
		const el = scroller.current;
		const height = el?.clientHeight || 800;
		// Where the viewport will be once the layout effect has placed it.
		const anchored = m.anchor && index.has(m.anchor.id);
		const top = m.stick
			? total - height
			: anchored
				? (offsets[index.get(m.anchor!.id) as number] as number) + m.anchor!.delta
				: (el?.scrollTop ?? 0) - (list.current?.offsetTop ?? 0);
		start = rowAt(offsets, top - OVERSCAN_PX);
		end = Math.min(ids.length, rowAt(offsets, top + height + OVERSCAN_PX) + 1);
	}
	m.rendered = { start, end };

	useLayoutEffect(() => {
		const el = scroller.current;
		const box = list.current;
		if (!el || !box) return;
		let changed = false;
		for (const child of Array.from(box.children) as HTMLElement[]) {
			const id = child.dataset.vid;
			if (id === undefined) continue;
			const h = child.offsetHeight;
			const before = m.heights.get(id);
			if (before === h) continue;
			if (before === undefined) {
				m.measuredSum += h;
				m.measuredCount++;
			} else m.measuredSum += h - before;
			m.heights.set(id, h);
			changed = true;
		}
		if (changed) m.heightsVersion++;
		if (m.stick) el.scrollTop = el.scrollHeight;
		else if (m.anchor && m.index.has(m.anchor.id)) {
			// Offsets as they are now in the DOM: measured rows inside the window, the padding above unchanged.
			let y = box.offsetTop + m.anchor.delta;
			const target = m.index.get(m.anchor.id) as number;
			const from = Math.min(target, m.rendered.start);
			y += m.offsets[from] as number;
			for (let i = from; i < target; i++) y += m.heights.get(m.ids[i] as string) ?? estimate;
			if (Math.abs(el.scrollTop - y) >= 1) el.scrollTop = y;
		}
		m.lastTop = el.scrollTop;
		if (changed && m.passes < MAX_PASSES) {
			m.passes++;
			rerender();
		} else m.passes = 0;
		if (el.scrollTop - box.offsetTop < el.clientHeight * 2) nearTop.current();
	});

	// A row that grows or shrinks after it was drawn (an image, a folded block opened, the window resized).
	useLayoutEffect(() => {
		const box = list.current;
		if (!box || typeof ResizeObserver === "undefined") return;
		const observer = new ResizeObserver(() => rerender());
		observer.observe(box);
		return () => observer.disconnect();
	}, [rerender]);

	const onScroll = useCallback(() => {
		const el = scroller.current;
		if (!el) return;
		noteScroll(m, el, list.current?.offsetTop ?? 0);
		setAtBottom(m.stick);
		if (el.scrollTop - (list.current?.offsetTop ?? 0) < el.clientHeight * 2) nearTop.current();
		if (m.ids.length < WINDOW_FROM_ROWS || m.frame !== undefined) return;
		// Redraw at most once a frame, and only when the viewport nears the edge of what is drawn.
		m.frame = requestAnimationFrame(() => {
			m.frame = undefined;
			const top = el.scrollTop - (list.current?.offsetTop ?? 0);
			const first = rowAt(m.offsets, top - OVERSCAN_PX / 2);
			const last = rowAt(m.offsets, top + el.clientHeight + OVERSCAN_PX / 2);
			if (first < m.rendered.start || last >= m.rendered.end) rerender();
		});
	}, [rerender]);

	const scrollToBottom = useCallback(() => {
		m.stick = true;
		setAtBottom(true);
		rerender();
	}, [rerender]);

	const scrollToRow = useCallback(
		(id: string) => {
			m.stick = false;
			m.anchor = { id, delta: -8 };
			setAtBottom(false);
			rerender();
		},
		[rerender],
	);

	const padTop = offsets[start] as number;
	const padBottom = total - (offsets[end] as number);
	return { start, end, padTop, padBottom, atBottom, onScroll, scrollToBottom, scrollToRow, offsets };
}
