/**
 * Requests across the page as window events: a transcript row asks the composer for a fork (rows stay free of
 * session callbacks), the composer's `/resume` asks the chamber to open a session; the layout between them
 * needs no wiring.
 */
function channel(name: string) {
	return {
		request: (detail: string) => window.dispatchEvent(new CustomEvent(name, { detail })),
		on(handler: (detail: string) => void): () => void {
			const listener = (e: Event) => handler(String((e as CustomEvent).detail));
			window.addEventListener(name, listener);
			return () => window.removeEventListener(name, listener);
		},
	};
}

const fork = channel("pier:fork");
const open = channel("pier:open-session");

/** Fork before this user message (its row's Fork button). */
export const requestFork = fork.request;
export const onForkRequest = fork.on;
/** `/resume`: the chamber opens that session as if it were picked in the list. */
export const requestOpenSession = open.request;
export const onOpenSessionRequest = open.on;
