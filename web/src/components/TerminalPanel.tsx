/**
 * The composer row's "Terminal" button. The terminals themselves (xterm.js and its CSS) are their own chunk,
 * fetched the first time the user opens them; nothing is asked of the daemon before that. Whether the panel was
 * open is kept for the tab (sessionStorage), so a reload brings it back with each terminal's scrollback.
 */
import { useEffect, useState } from "preact/hooks";
import { lazyModule } from "../lazy-module.js";

const sheetModule = lazyModule(() => import("./TerminalSheet.js"));

const openKey = (sessionId: string) => `pier.terminal.open.${sessionId}`;

function remembered(sessionId: string): boolean {
	try {
		return sessionStorage.getItem(openKey(sessionId)) === "1";
	} catch {
		return false;
	}
}

function remember(sessionId: string, open: boolean): void {
	try {
		if (open) sessionStorage.setItem(openKey(sessionId), "1");
		else sessionStorage.removeItem(openKey(sessionId));
	} catch {
		// Storage disabled: a reload shows the button, and one click brings the terminals back.
	}
}

export function TerminalPanel({ sessionId }: { sessionId: string }) {
	const [open, setOpen] = useState(() => remembered(sessionId));
	/** Opened by a click in this page (rather than brought back by a reload). */
	const [clicked, setClicked] = useState(false);
	const [sheet, setSheet] = useState(sheetModule.get());
	const [error, setError] = useState<string | undefined>();
	useEffect(() => {
		if (!open || sheet) return;
		let live = true;
		sheetModule.load().then(
			(mod) => live && setSheet(mod),
			(err: unknown) => live && setError(`The terminal did not load: ${(err as Error).message}`),
		);
		return () => {
			live = false;
		};
	}, [open, sheet]);
	const toggle = (next: boolean) => {
		setOpen(next);
		setClicked(next);
		setError(undefined);
		remember(sessionId, next);
	};
	return (
		<>
			<button
				type="button"
				class="terminal-toggle"
				data-testid="terminal-toggle"
				aria-expanded={open}
				onClick={() => toggle(!open)}
			>
				Terminal
			</button>
			{open && error && (
				<span class="inline-error" role="alert">
					{error}
				</span>
			)}
			{open && sheet && <sheet.TerminalSheet sessionId={sessionId} startOne={clicked} onHide={() => toggle(false)} />}
		</>
	);
}
