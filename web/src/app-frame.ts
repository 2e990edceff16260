/**
 * App surfaces: extension HTML in a script-only sandbox. The iframe has an opaque origin (no
 * allow-same-origin), a CSP that forbids every network fetch, and one way out: a postMessage that the host
 * accepts only from that frame's window and with the random token minted for that mount. The frame loads a
 * static shell with a CSP of its own and becomes the document the page posts to it, so the page's own CSP
 * needs no inline scripts (a `srcdoc` frame would inherit the page's policy).
 *
 * The token travels in the mount message and stays in the shell's closure (web/public/app-frame.html): the
 * app's document never contains it, so the app cannot post a command itself. The shell posts one for each real
 * (`isTrusted`) click on a `data-pichamber-command` element. Which commands an app may run at all is the
 * daemon's decision (src/chamber/ui/app-owner.ts), not this page's.
 */
import { COMMAND_NAME } from "../../src/chamber/ui/descriptors.js";

export const APP_SANDBOX = "allow-scripts";

/** The frame shell (web/public/app-frame.html): it takes the app's document from its parent, once. */
export const APP_FRAME_URL = "/app-frame.html";

export const APP_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

export function mintToken(): string {
	const bytes = new Uint8Array(16);
	crypto.getRandomValues(bytes);
	return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * What every app document starts with: the user's colour scheme. `color-scheme: light dark` makes the frame's
 * defaults (background, text, form controls, scrollbars) follow `prefers-color-scheme`, which an app reads the
 * usual way (a CSS media query or `matchMedia`); an app drawn for a white page only opts out with
 * `:root { color-scheme: light }`. It is a style sheet in the app's own document: it grants nothing the sandbox
 * and the frame's CSP did not already allow (inline styles).
 */
export const APP_SCHEME_STYLE = ":root{color-scheme:light dark}html{background:Canvas;color:CanvasText}";

/** The app's document, without any secret in it. */
export function buildAppDocument(html: string): string {
	return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${APP_CSP}"><meta name="referrer" content="no-referrer"><meta name="color-scheme" content="light dark"><style>${APP_SCHEME_STYLE}</style></head><body>${html}</body></html>`;
}

/** Defense in depth: a real click in the frame also activates this page; a script's click never does. */
export function pageActivated(): boolean {
	return (navigator as Navigator & { userActivation?: { isActive: boolean } }).userActivation?.isActive === true;
}

export interface AppCommand {
	command: string;
	args?: string;
}

const MAX_ARGS = 2000;

/** The host's single gate: anything that is not exactly our frame, our token and a valid command is ignored. */
export function acceptAppMessage(
	event: Pick<MessageEvent, "source" | "data">,
	frame: Window | null | undefined,
	token: string,
): AppCommand | undefined {
	if (!frame || event.source !== frame) return undefined;
	const data = event.data as { type?: unknown; token?: unknown; command?: unknown; args?: unknown } | null;
	if (!data || typeof data !== "object" || data.type !== "pichamber.command") return undefined;
	if (typeof data.token !== "string" || data.token !== token) return undefined;
	if (typeof data.command !== "string" || !COMMAND_NAME.test(data.command)) return undefined;
	if (data.args !== undefined && data.args !== null && (typeof data.args !== "string" || data.args.length > MAX_ARGS)) {
		return undefined;
	}
	return typeof data.args === "string" ? { command: data.command, args: data.args } : { command: data.command };
}
