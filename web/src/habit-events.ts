/**
 * Requests from transcript rows to the composer (which owns pi's habits: the fork picker, the tree), as
 * window events: rows stay free of session callbacks, and the layout between them needs no wiring.
 */
const FORK = "pier:fork";

export function requestFork(entryId: string): void {
	window.dispatchEvent(new CustomEvent(FORK, { detail: entryId }));
}

export function onForkRequest(handler: (entryId: string) => void): () => void {
	const listener = (e: Event) => handler(String((e as CustomEvent).detail));
	window.addEventListener(FORK, listener);
	return () => window.removeEventListener(FORK, listener);
}

const OPEN = "pier:open-session";

/** `/resume`: the chamber opens that session as if it were picked in the list. */
export function requestOpenSession(id: string): void {
	window.dispatchEvent(new CustomEvent(OPEN, { detail: id }));
}

export function onOpenSessionRequest(handler: (id: string) => void): () => void {
	const listener = (e: Event) => handler(String((e as CustomEvent).detail));
	window.addEventListener(OPEN, listener);
	return () => window.removeEventListener(OPEN, listener);
}
