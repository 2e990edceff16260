/**
 * Drawings of the rows an extension draws (pi's components, drawn on the daemon): asked for only by rows that are
 * on screen (the transcript is windowed), batched per frame into one request per width and expanded state, cached
 * per row, width bucket and state. The transcript reports its width in columns; a resize that stays inside a bucket
 * asks for nothing. `transcript.drawn` events drop a row's drawings so it asks again.
 */
import { useEffect, useState } from "preact/hooks";
import { snapWidth } from "../../src/chamber/tui/drawing-wire.js";
import { authHeaders } from "./api.js";
import type { DrawingsAnswer, RowDrawing } from "./types.js";

const MAX_PER_REQUEST = 50;

let sessionId: string | undefined;
let width = 0;
/** pi's Ctrl+O (`app.tools.expand`): every drawn row expanded or collapsed. */
let expandedAll = false;
/** Rows toggled on their own since the last Ctrl+O. */
const perRow = new Map<string, boolean>();
const cache = new Map<string, RowDrawing>();
const asked = new Set<string>();
let queue = new Map<string, Set<string>>();
let scheduled = false;
let version = 0;
const listeners = new Set<() => void>();

function notify(): void {
	version++;
	for (const listener of listeners) listener();
}

const cacheKey = (key: string, w: number, expanded: boolean) => `${key}\n${w}\n${expanded ? 1 : 0}`;

/** The transcript's session: drawings of another session are dropped. */
export function setDrawingSession(id: string): void {
	if (id === sessionId) return;
	sessionId = id;
	cache.clear();
	asked.clear();
	perRow.clear();
	notify();
}

/** The transcript's width in columns (what a monospace line of the drawings can hold). */
export function setDrawingColumns(columns: number): void {
	const bucket = snapWidth(columns);
	if (bucket === width) return;
	width = bucket;
	notify();
}

export function isExpanded(key: string): boolean {
	return perRow.get(key) ?? expandedAll;
}

export function toggleAllExpanded(): void {
	expandedAll = !expandedAll;
	perRow.clear();
	notify();
}

export function toggleExpanded(key: string): void {
	perRow.set(key, !isExpanded(key));
	notify();
}

/** A `transcript.drawn` event: these rows' drawings changed. */
export function invalidateDrawings(ids: readonly string[]): void {
	const gone = new Set(ids);
	for (const k of [...cache.keys(), ...asked]) {
		if (!gone.has(k.slice(0, k.indexOf("\n")))) continue;
		cache.delete(k);
		asked.delete(k);
	}
	notify();
}

async function fetchBatch(session: string, w: number, expanded: boolean, keys: string[]): Promise<void> {
	const rows = keys.map(encodeURIComponent).join(",");
	const url = `/api/pi/sessions/${encodeURIComponent(session)}/drawings?rows=${rows}&width=${w}&expanded=${expanded ? 1 : 0}`;
	let answer: DrawingsAnswer | undefined;
	try {
		const res = await fetch(url, { credentials: "same-origin", headers: authHeaders() });
		if (res.ok) answer = (await res.json()) as DrawingsAnswer;
	} catch {
		// The row keeps its raw form; a later width or event asks again.
	}
	if (session !== sessionId) return;
	for (const key of keys) {
		const k = cacheKey(key, w, expanded);
		const drawing = answer?.drawings[key];
		// A pending drawing is asked for again when its `transcript.drawn` event arrives.
		if (drawing) cache.set(k, drawing);
		else asked.delete(k);
	}
	notify();
}

function flush(): void {
	scheduled = false;
	const batches = queue;
	queue = new Map();
	const session = sessionId;
	if (!session) return;
	for (const [batch, keys] of batches) {
		const [w, e] = batch.split("\n");
		const list = [...keys];
		for (let i = 0; i < list.length; i += MAX_PER_REQUEST)
			void fetchBatch(session, Number(w), e === "1", list.slice(i, i + MAX_PER_REQUEST));
	}
}

function ask(key: string, expanded: boolean): void {
	const k = cacheKey(key, width, expanded);
	if (asked.has(k)) return;
	asked.add(k);
	const batch = `${width}\n${expanded ? 1 : 0}`;
	const keys = queue.get(batch) ?? new Set<string>();
	keys.add(key);
	queue.set(batch, keys);
	if (!scheduled) {
		scheduled = true;
		requestAnimationFrame(flush);
	}
}

/** The row's drawing at the transcript's width (undefined until it arrives), and whether it is expanded. */
export function useDrawing(key: string): { drawing: RowDrawing | undefined; expanded: boolean } {
	const [seen, setSeen] = useState(version);
	useEffect(() => {
		const listener = () => setSeen(version);
		listeners.add(listener);
		// A change between this render and now (the transcript's width, measured in its own effect) is not missed.
		if (seen !== version) listener();
		return () => {
			listeners.delete(listener);
		};
	}, []);
	const expanded = isExpanded(key);
	if (width === 0 || !sessionId) return { drawing: undefined, expanded };
	const drawing = cache.get(cacheKey(key, width, expanded));
	if (!drawing) ask(key, expanded);
	return { drawing, expanded };
}

/** Space a drawn row's lines lose to the row's own padding, in pixels. */
const ROW_INSET_PX = 24;

/**
 * Reports the transcript's width in columns of the drawings' monospace font (measured once, on a hidden line of
 * the same class), and toggles every drawn row on Ctrl+O as pi's terminal does.
 */
export function useDrawingColumns(ref: { current: HTMLElement | null }, session: string): void {
	setDrawingSession(session);
	// The list element may come after the first render (a phone's transcript mounts behind its list view).
	const el = ref.current;
	useEffect(() => {
		if (!el) return;
		const probe = document.createElement("pre");
		probe.className = "tui-lines";
		probe.style.cssText = "position:absolute;visibility:hidden;overflow:visible;width:auto";
		probe.textContent = "0".repeat(100);
		el.append(probe);
		const charWidth = probe.getBoundingClientRect().width / 100 || 7.5;
		probe.remove();
		const measure = () => setDrawingColumns(Math.floor((el.clientWidth - ROW_INSET_PX) / charWidth));
		const observer = new ResizeObserver(measure);
		observer.observe(el);
		measure();
		const onKey = (e: KeyboardEvent) => {
			if (!e.ctrlKey || e.altKey || e.shiftKey || e.metaKey || e.key.toLowerCase() !== "o") return;
			e.preventDefault();
			toggleAllExpanded();
		};
		document.addEventListener("keydown", onKey);
		return () => {
			observer.disconnect();
			document.removeEventListener("keydown", onKey);
		};
	}, [el]);
}
