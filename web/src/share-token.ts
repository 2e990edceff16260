/**
 * The share link this tab was opened with (`…/#share=<token>`): taken out of the address bar at once, so it stays
 * out of history, bookmarks and Referer, and kept in this tab's sessionStorage. The page sends it as
 * `Authorization: Bearer` (api.ts `authHeaders`), never in a URL, so it reaches no server log either.
 */
const STORAGE = "pier.shareToken";
const FRAGMENT = /^#share=([^&]+)/;

/** Moves a `#share=` token from the address into this tab's storage; true when the tab holds a share link. */
export function takeShareFromUrl(): boolean {
	const match = FRAGMENT.exec(window.location.hash);
	if (match?.[1]) {
		try {
			sessionStorage.setItem(STORAGE, decodeURIComponent(match[1]));
		} catch {
			// Storage disabled: the link works until this page is left.
			memory = decodeURIComponent(match[1]);
		}
		history.replaceState(null, "", window.location.pathname + window.location.search);
	}
	return heldShareToken() !== undefined;
}

let memory: string | undefined;

export function heldShareToken(): string | undefined {
	try {
		return sessionStorage.getItem(STORAGE) ?? memory;
	} catch {
		return memory;
	}
}

/** Leaves the share link: the tab becomes an ordinary chamber page again (sign-in). */
export function dropShareToken(): void {
	memory = undefined;
	try {
		sessionStorage.removeItem(STORAGE);
	} catch {
		// Nothing stored.
	}
}
