/**
 * Live panels and app surfaces, out of the transcript's way: a side pane on a wide screen (folded or resized
 * by the user, remembered per session), a drawer behind a badge button on a phone. The pane's content stays
 * mounted while it is folded or closed, so an app's frame keeps its document (and its mount token) throughout.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { clampWidth, loadPane, type PaneLayout, savePane } from "../pane-state.js";
import type { AppSurface, NormalizedCard } from "../types.js";
import type { RunCardCommand } from "./ActionButton.js";
import { AppDock, type RunAppCommand } from "./AppFrame.js";
import { PanelDock } from "./PanelDock.js";

/**
 * Under this width the pane is a drawer. It is wider than the one-column breakpoint (699 px): between the two,
 * the session list, a pane and the transcript side by side would leave the transcript a strip.
 */
const NARROW = "(max-width: 1099px)";

/** A request to show one panel or app, from its transcript marker; `n` makes a repeated click a new request. */
export interface Reveal {
	kind: "panel" | "app";
	id: string;
	n: number;
}

export function useNarrow(): boolean {
	const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW).matches);
	useEffect(() => {
		const query = window.matchMedia(NARROW);
		const onChange = () => setNarrow(query.matches);
		query.addEventListener("change", onChange);
		return () => query.removeEventListener("change", onChange);
	}, []);
	return narrow;
}

interface PaneProps {
	sessionId: string;
	apps: AppSurface[];
	panels: NormalizedCard[];
	onCommand: RunCardCommand;
	onAppCommand: RunAppCommand;
	reveal?: Reveal;
}

export function SidePane({ sessionId, apps, panels, onCommand, onAppCommand, reveal }: PaneProps) {
	const narrow = useNarrow();
	const [layout, setLayout] = useState<PaneLayout>(() => loadPane(sessionId));
	const [drawerOpen, setDrawerOpen] = useState(false);
	const pane = useRef<HTMLElement>(null);
	const count = apps.length + panels.length;
	const shown = count > 0 && (narrow ? drawerOpen : !layout.collapsed);

	const update = (next: Partial<PaneLayout>) =>
		setLayout((prev) => {
			const merged = { ...prev, ...next };
			savePane(sessionId, merged);
			return merged;
		});
	const width = clampWidth(layout.width, window.innerWidth);

	// The drawer takes the focus when it opens and gives it back to its button when it closes.
	const toggle = useRef<HTMLButtonElement>(null);
	const wasOpen = useRef(false);
	useEffect(() => {
		if (!narrow) return;
		if (drawerOpen) pane.current?.querySelector<HTMLElement>('[data-testid="pane-close"]')?.focus();
		else if (wasOpen.current) toggle.current?.focus();
		wasOpen.current = drawerOpen;
	}, [drawerOpen, narrow]);

	// A drawer with nothing left in it closes, so the next panel does not open it by surprise.
	useEffect(() => {
		if (count === 0) setDrawerOpen(false);
	}, [count]);

	useEffect(() => {
		if (!reveal) return;
		if (narrow) setDrawerOpen(true);
		else if (layout.collapsed) update({ collapsed: false });
		const frame = requestAnimationFrame(() => {
			const selector =
				reveal.kind === "panel"
					? `[data-testid="panel"][data-panel-id="${CSS.escape(reveal.id)}"]`
					: `.app-surface[data-app-id="${CSS.escape(reveal.id)}"]`;
			const target = pane.current?.querySelector<HTMLElement>(selector);
			if (!target) return;
			target.scrollIntoView({ block: "nearest" });
			target.focus({ preventScroll: true });
			target.classList.remove("flash");
			void target.offsetWidth; // restart the animation on a second click
			target.classList.add("flash");
		});
		return () => cancelAnimationFrame(frame);
		// Only a new request moves the pane; the layout it changes must not re-run it.
	}, [reveal]);

	if (count === 0) return null;
	const toggleLabel = `${narrow ? "Show" : "Expand"} live panels and apps (${count})`;
	return (
		<>
			{(narrow || layout.collapsed) && !shown && (
				<button
					ref={toggle}
					type="button"
					class={`pane-toggle${narrow ? " is-floating" : " is-rail"}`}
					data-testid="pane-toggle"
					aria-controls="side-pane"
					aria-expanded={false}
					title={toggleLabel}
					onClick={() => (narrow ? setDrawerOpen(true) : update({ collapsed: false }))}
				>
					Live
					<span class="pane-badge" data-testid="pane-badge">
						{count}
					</span>
				</button>
			)}
			{narrow && shown && <div class="pane-scrim" aria-hidden="true" onClick={() => setDrawerOpen(false)} />}
			<aside
				id="side-pane"
				ref={pane}
				class={`side-pane${narrow ? " is-drawer" : ""}`}
				data-testid="side-pane"
				aria-label="Live panels and apps"
				hidden={!shown}
				style={narrow ? undefined : { width: `${width}px` }}
				onKeyDown={(e) => {
					if (narrow && e.key === "Escape") {
						e.stopPropagation();
						setDrawerOpen(false);
					}
				}}
			>
				{!narrow && <ResizeHandle width={width} onWidth={(w) => update({ width: w })} />}
				<header class="pane-head">
					<h2>
						Live <span class="muted">· {count}</span>
					</h2>
					<button
						type="button"
						class="pane-close"
						data-testid="pane-close"
						title={narrow ? "Close the drawer" : "Fold the side pane"}
						onClick={() => (narrow ? setDrawerOpen(false) : update({ collapsed: true }))}
					>
						{narrow ? "Close" : "Hide"}
					</button>
				</header>
				<div class="pane-body">
					<AppDock apps={apps} onCommand={onAppCommand} />
					<PanelDock panels={panels} onCommand={onCommand} />
				</div>
			</aside>
		</>
	);
}

/** The pane's left edge: dragged with a pointer, or moved with the arrow keys once focused. */
function ResizeHandle({ width, onWidth }: { width: number; onWidth: (w: number) => void }) {
	const drag = useRef<{ x: number; width: number } | undefined>(undefined);
	const set = (w: number) => onWidth(clampWidth(w, window.innerWidth));
	return (
		// biome-ignore lint/a11y/useSemanticElements: a focusable splitter is role="separator" (no element for it)
		<div
			class="pane-resize"
			data-testid="pane-resize"
			role="separator"
			aria-orientation="vertical"
			aria-label="Resize the side pane"
			aria-valuenow={width}
			tabIndex={0}
			onPointerDown={(e) => {
				drag.current = { x: e.clientX, width };
				e.currentTarget.setPointerCapture(e.pointerId);
			}}
			onPointerMove={(e) => {
				if (drag.current) set(drag.current.width + (drag.current.x - e.clientX));
			}}
			onPointerUp={() => {
				drag.current = undefined;
			}}
			onKeyDown={(e) => {
				if (e.key === "ArrowLeft") set(width + 24);
				else if (e.key === "ArrowRight") set(width - 24);
				else return;
				e.preventDefault();
			}}
		/>
	);
}
