/**
 * A session's terminals: tabs, a new one, the screen of the one shown, and on a phone a row of keys it has no key
 * for (Esc, Tab, Ctrl-C, Ctrl-D, arrows). One stream (`GET …/terminals/stream`, read through fetch for the browser
 * key) carries every terminal of the session: on each (re)connect it lists them and replays each one's scrollback
 * into a reset screen, so a reload or a dropped connection shows what was there. A shell that ends leaves its tab,
 * saying how it ended, until the user closes it. Hide keeps the shells running.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, authHeaders, describeError } from "../api.js";
import { FetchEventSource } from "../sse.js";
import type { TerminalEventName, TerminalEventPayloads, TerminalView } from "../types.js";
import { visible } from "../visible.js";
import { type Screen, Screens, XtermSlot } from "./TerminalScreens.js";

interface Tab {
	id: string;
	view: TerminalView;
	/** How the shell ended, once it has. */
	ended?: string;
}

/** After a dropped stream, the next try; a reconnect replays everything, so nothing is lost meanwhile. */
const RETRY_MS = 1000;

/** Keys a phone's keyboard lacks. Arrows follow the screen's cursor-key mode (vim and less switch it). */
const KEYS: { label: string; name: string; spoken?: string; data: (s: Screen) => string }[] = [
	{ label: "Esc", name: "Escape", data: () => "\x1b" },
	{ label: "Tab", name: "Tab", data: () => "\t" },
	{ label: "^C", name: "Ctrl-C", spoken: "^C (Ctrl-C)", data: () => "\x03" },
	{ label: "^D", name: "Ctrl-D", spoken: "^D (Ctrl-D)", data: () => "\x04" },
	...(
		[
			["←", "Left", "D"],
			["↑", "Up", "A"],
			["↓", "Down", "B"],
			["→", "Right", "C"],
		] as const
	).map(([label, name, letter]) => ({
		label,
		name,
		spoken: name,
		data: (s: Screen) => `\x1b${s.term.modes.applicationCursorKeysMode ? "O" : "["}${letter}`,
	})),
];

/** Output's UTF-8 bytes, which xterm.js decodes itself. */
function bytesOf(base64: string): Uint8Array {
	const binary = atob(base64);
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
	return bytes;
}

function endText(p: TerminalEventPayloads["terminal.exit"]): string {
	if (p.reason === "closed") return "terminal closed";
	return p.signal ? `shell ended by signal ${p.signal}` : `shell exited with code ${p.exitCode}`;
}

function tabLabel(view: TerminalView, n: number): string {
	return `${view.shell.split("/").pop() ?? "shell"} ${n}`;
}

export interface TerminalSheetProps {
	sessionId: string;
	/** Opened by a click (not brought back by a reload): start a shell if none runs. */
	startOne: boolean;
	onHide: () => void;
}

export function TerminalSheet({ sessionId, startOne, onHide }: TerminalSheetProps) {
	const [tabs, setTabs] = useState<Tab[]>([]);
	const [active, setActive] = useState<string | undefined>();
	const [connected, setConnected] = useState(false);
	const [gone, setGone] = useState(false);
	const [error, setError] = useState<string | undefined>();
	const [opening, setOpening] = useState(false);
	const screens = useMemo(() => new Screens(sessionId, setError), [sessionId]);
	const activeRef = useRef(active);
	activeRef.current = active;
	const tabsRef = useRef(tabs);
	tabsRef.current = tabs;
	const wantOne = useRef(startOne);
	/** Tabs this page closed: output still on its way for them makes no new screen. */
	const dropped = useRef(new Set<string>());
	const sheet = useRef<HTMLElement>(null);

	// A phone's keyboard covers the bottom of the page: the sheet (full screen there) keeps to what is visible.
	useEffect(() => {
		const viewport = window.visualViewport;
		const el = sheet.current;
		if (!viewport || !el) return;
		const follow = () => {
			el.style.setProperty("--terminal-top", `${viewport.offsetTop}px`);
			el.style.setProperty("--terminal-height", `${viewport.height}px`);
		};
		follow();
		viewport.addEventListener("resize", follow);
		viewport.addEventListener("scroll", follow);
		return () => {
			viewport.removeEventListener("resize", follow);
			viewport.removeEventListener("scroll", follow);
		};
	}, []);

	useEffect(() => {
		let source: FetchEventSource | undefined;
		let retry: ReturnType<typeof setTimeout> | undefined;
		let stopped = false;
		const on = <E extends TerminalEventName>(name: E, handle: (payload: TerminalEventPayloads[E]) => void) =>
			source?.addEventListener(name, (e) => handle(JSON.parse(e.data) as TerminalEventPayloads[E]));
		const ended = (id: string, text: string) => {
			const screen = screens.has(id) ? screens.get(id) : undefined;
			if (screen && !screen.ended) {
				screen.ended = true;
				screen.term.write(`\r\n\x1b[2m[${text}]\x1b[0m\r\n`);
			}
			setTabs((all) => all.map((t) => (t.id === id && !t.ended ? { ...t, ended: text } : t)));
		};
		const connect = () => {
			source = new FetchEventSource(`/api/pi/sessions/${encodeURIComponent(sessionId)}/terminals/stream`, {
				headers: authHeaders(),
			});
			on("terminal.list", (payload) => {
				const terminals = payload.terminals.filter((t) => !dropped.current.has(t.id));
				const running = new Set(terminals.map((t) => t.id));
				for (const t of tabsRef.current) if (!t.ended && !running.has(t.id)) ended(t.id, "terminal closed while away");
				setTabs((all) => {
					const known = new Set(all.map((t) => t.id));
					return [...all, ...terminals.filter((t) => !known.has(t.id)).map((view) => ({ id: view.id, view }))];
				});
				if (!activeRef.current && terminals.length > 0) setActive(terminals.at(-1)!.id);
				// Opened with a click and none runs: the click was for a shell.
				if (wantOne.current && terminals.length === 0) void openOne();
				wantOne.current = false;
			});
			on("terminal.replay", ({ id, base64 }) => {
				if (dropped.current.has(id)) return;
				const screen = screens.get(id);
				screen.term.reset();
				screen.term.write(bytesOf(base64));
			});
			on("terminal.opened", ({ terminal }) => {
				if (dropped.current.has(terminal.id)) return;
				setTabs((all) => (all.some((t) => t.id === terminal.id) ? all : [...all, { id: terminal.id, view: terminal }]));
			});
			on("terminal.output", ({ id, base64 }) => {
				if (!dropped.current.has(id)) screens.get(id).term.write(bytesOf(base64));
			});
			on("terminal.exit", (p) => ended(p.id, endText(p)));
			source.onopen = () => {
				setConnected(true);
				setGone(false);
			};
			source.onerror = () => {
				setConnected(false);
				if (stopped) return;
				// The session was deleted (its terminals with it): nothing to come back to.
				if (source?.status === 404) {
					setGone(true);
					return;
				}
				// A lapsed sign-in: any API call's 401 sends the app to its sign-in page.
				if (source?.status === 401) void api.terminals(sessionId).catch(() => {});
				retry = setTimeout(connect, RETRY_MS);
			};
		};
		connect();
		return () => {
			stopped = true;
			clearTimeout(retry);
			source?.close();
			screens.disposeAll();
		};
	}, [sessionId, screens]);

	const openOne = async () => {
		setOpening(true);
		try {
			const shown = active ? screens.get(active).term : undefined;
			const size = shown && screens.get(active!).opened ? { cols: shown.cols, rows: shown.rows } : {};
			const { terminal } = await api.openTerminal(sessionId, size);
			setTabs((all) => (all.some((t) => t.id === terminal.id) ? all : [...all, { id: terminal.id, view: terminal }]));
			setActive(terminal.id);
			setError(undefined);
		} catch (err) {
			setError(describeError(err));
		} finally {
			setOpening(false);
		}
	};

	const closeOne = async (tab: Tab) => {
		try {
			if (!tab.ended) await api.closeTerminal(sessionId, tab.id);
		} catch (err) {
			// Gone already (another page closed it): drop the tab all the same.
			if ((err as { status?: number }).status !== 404) {
				setError(describeError(err));
				return;
			}
		}
		dropped.current.add(tab.id);
		screens.dispose(tab.id);
		const rest = tabsRef.current.filter((t) => t.id !== tab.id);
		setTabs((all) => all.filter((t) => t.id !== tab.id));
		if (activeRef.current === tab.id) setActive(rest.at(-1)?.id);
	};

	const shown = tabs.find((t) => t.id === active);
	return (
		<section ref={sheet} class="terminal-sheet" role="dialog" aria-label="Terminals" data-testid="terminal-sheet">
			<header class="terminal-head">
				<div class="terminal-tabs">
					{tabs.map((tab, n) => (
						<span key={tab.id} class={`terminal-tab${tab.id === active ? " active" : ""}${tab.ended ? " ended" : ""}`}>
							<button
								type="button"
								aria-current={tab.id === active ? "true" : undefined}
								data-testid="terminal-tab"
								data-terminal-id={tab.id}
								title={`${tab.view.shell} in ${tab.view.cwd}`}
								onClick={() => setActive(tab.id)}
							>
								{tabLabel(tab.view, n + 1)}
							</button>
							<button
								type="button"
								class="terminal-tab-close"
								aria-label={`Close ${tabLabel(tab.view, n + 1)}`}
								data-testid="terminal-close"
								onClick={() => void closeOne(tab)}
							>
								×
							</button>
						</span>
					))}
				</div>
				<button
					type="button"
					title="New terminal"
					data-testid="terminal-new"
					disabled={opening || gone}
					onClick={() => void openOne()}
				>
					+ New
				</button>
				<button type="button" data-testid="terminal-hide" onClick={onHide}>
					Hide
				</button>
			</header>
			{shown && (
				<p class="terminal-where muted" data-testid="terminal-where">
					started in {visible(shown.view.cwd)}
					{shown.ended && <span data-testid="terminal-ended"> · {shown.ended}</span>}
				</p>
			)}
			{(error || gone || (!connected && tabs.length > 0)) && (
				<p class="terminal-status" role="status" data-testid="terminal-status">
					{gone ? "This session is gone, and its terminals with it." : (error ?? "Reconnecting…")}
				</p>
			)}
			<div class="terminal-body">
				{tabs.length === 0 && !gone && (
					<p class="terminal-empty muted">
						No terminal runs in this session. + New starts your shell in the session's directory.
					</p>
				)}
				{tabs.map((tab) => (
					<XtermSlot key={tab.id} screens={screens} screen={screens.get(tab.id)} active={tab.id === active} />
				))}
			</div>
			{shown && !shown.ended && (
				<div class="terminal-keys" data-testid="terminal-keys">
					{KEYS.map((k) => (
						<button
							type="button"
							key={k.name}
							// A word (Esc, Tab) names itself; a glyph or a caret is spelled out, keeping what shows.
							aria-label={k.spoken}
							data-testid={`terminal-key-${k.name}`}
							// The screen keeps the focus (and a phone its keyboard) when a key is tapped.
							onPointerDown={(e) => e.preventDefault()}
							onClick={() => {
								const screen = screens.get(shown.id);
								screens.type(screen, k.data(screen));
								screen.term.focus();
							}}
						>
							{k.label}
						</button>
					))}
				</div>
			)}
		</section>
	);
}
