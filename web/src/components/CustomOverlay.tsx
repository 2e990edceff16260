/**
 * An extension's `ctx.ui.custom()` component: drawn on the daemon (its lines arrive as styled lines), shown here in
 * a modal that takes the keyboard. Keys go to the component as terminal input (terminal-keys.ts); the page reports
 * its width in columns, which the daemon draws at. On a phone a row of on-screen keys stands in for the arrows,
 * Enter, Tab and Escape, and a text field for typing. Cancel closes it for every device: the extension's call
 * resolves with `undefined`.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { trapTab } from "../dialog-keys.js";
import { type KeyLike, SCREEN_KEYS, terminalInput } from "../terminal-keys.js";
import type { CustomInput, CustomView } from "../types.js";
import { visible } from "../visible.js";
import { StyledLines } from "./StyledLines.js";

interface CustomLayerProps {
	sessionId: string;
	customs: readonly CustomView[] | undefined;
	onDone?: () => void;
}

export function CustomLayer({ sessionId, customs, onDone }: CustomLayerProps) {
	const top = customs?.at(-1);
	const had = useRef(top !== undefined);
	useEffect(() => {
		if (had.current && !top) onDone?.();
		had.current = top !== undefined;
	}, [top, onDone]);
	if (!top) return null;
	return (
		<div class="dialog-layer custom-layer" data-testid="custom-layer">
			<CustomPanel key={top.customId} sessionId={sessionId} custom={top} />
		</div>
	);
}

/** Columns of the screen's monospace text that fit its width. */
function measureColumns(screen: HTMLElement): { columns: number; rows: number } {
	const probe = document.createElement("span");
	probe.textContent = "0".repeat(20);
	probe.style.visibility = "hidden";
	probe.style.position = "absolute";
	const pre = screen.querySelector(".tui-lines") ?? screen;
	pre.append(probe);
	const cell = probe.getBoundingClientRect();
	probe.remove();
	const charWidth = cell.width / 20 || 8;
	const lineHeight = cell.height || 17;
	const style = getComputedStyle(screen);
	const inner = screen.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight);
	return {
		columns: Math.max(20, Math.min(400, Math.floor(inner / charWidth))),
		rows: Math.max(1, Math.min(200, Math.floor(window.innerHeight / lineHeight))),
	};
}

function CustomPanel({ sessionId, custom }: { sessionId: string; custom: CustomView }) {
	const [error, setError] = useState<string | undefined>();
	const root = useRef<HTMLElement>(null);
	const screen = useRef<HTMLDivElement>(null);
	const typed = useRef<HTMLInputElement>(null);
	// Keys are sent one after another, in the order typed.
	const queue = useRef<Promise<unknown>>(Promise.resolve());
	const reported = useRef("");

	const send = (input: CustomInput) => {
		queue.current = queue.current
			.then(() => api.customInput(sessionId, custom.customId, input))
			.then(() => setError(undefined))
			.catch((err) => setError(describeError(err)));
	};
	const key = (k: KeyLike) => {
		const data = terminalInput(k);
		if (data !== undefined) send({ data });
	};

	// The keyboard moves to the screen in the same frame that first draws it: keys typed the moment the component
	// shows go to it, not to the composer (an effect runs after the paint, and a busy page paints first).
	useLayoutEffect(() => {
		screen.current?.focus();
	}, []);

	useEffect(() => {
		const el = screen.current;
		if (!el) return;
		const report = () => {
			const size = measureColumns(el);
			const said = `${size.columns}x${size.rows}`;
			if (said === reported.current) return;
			reported.current = said;
			send(size);
		};
		report();
		const observer = new ResizeObserver(report);
		observer.observe(el);
		return () => observer.disconnect();
	}, []);

	const titleId = `custom-title-${custom.customId}`;
	return (
		<section
			ref={root}
			class="dialog custom-panel"
			role="dialog"
			aria-modal="true"
			aria-labelledby={titleId}
			data-testid="custom"
			data-custom-id={custom.customId}
			onKeyDown={(e) => {
				// Tab and Shift+Tab on the buttons stay inside the dialog; on the screen they are the component's.
				if (e.key === "Tab" && e.target !== screen.current) trapTab(e, root.current!);
			}}
		>
			<header class="dialog-head">
				<h2 id={titleId}>{visible(custom.extension ?? "Extension")}</h2>
				<span class="muted custom-hint">keys go to the extension</span>
				<button
					type="button"
					data-testid="custom-cancel"
					onClick={() => void api.cancelCustom(sessionId, custom.customId).catch((err) => setError(describeError(err)))}
				>
					Cancel
				</button>
			</header>
			<div
				ref={screen}
				class="custom-screen"
				tabIndex={-1}
				role="application"
				aria-label="Extension screen: keys typed here go to the extension"
				data-testid="custom-screen"
				data-columns={custom.columns}
				onClick={() => screen.current?.focus()}
				onKeyDown={(e) => {
					const data = terminalInput(e);
					if (data === undefined) return;
					e.preventDefault();
					e.stopPropagation();
					send({ data });
				}}
				onPaste={(e) => {
					const text = e.clipboardData?.getData("text/plain");
					if (!text) return;
					e.preventDefault();
					send({ data: text });
				}}
			>
				<StyledLines lines={custom.lines} testId="custom-lines" />
			</div>
			{error && (
				<p class="overlay-status" role="status" data-testid="custom-status">
					{visible(error)}
				</p>
			)}
			<div class="custom-keys" data-testid="custom-keys">
				{SCREEN_KEYS.map((k) => (
					<button
						type="button"
						key={k.name}
						// A glyph (←, ⏎) is named by its key; a word (Tab, Esc) names itself.
						aria-label={/^\w/.test(k.label) ? undefined : k.name}
						data-testid={`custom-key-${k.name}`}
						onClick={() => key(k.key)}
					>
						{k.label}
					</button>
				))}
				<input
					ref={typed}
					class="custom-type"
					placeholder="Type…"
					aria-label="Type text for the extension"
					data-testid="custom-type"
					autocapitalize="off"
					autocomplete="off"
					onKeyDown={(e) => {
						// Text arrives through onInput (soft keyboards send no key names); the rest is a key.
						if ([...e.key].length === 1 && !e.ctrlKey && !e.altKey && !e.metaKey) return;
						const data = terminalInput(e);
						if (data === undefined) return;
						e.preventDefault();
						e.stopPropagation();
						send({ data });
					}}
					onInput={(e) => {
						const text = e.currentTarget.value;
						e.currentTarget.value = "";
						if (text) send({ data: text });
					}}
				/>
			</div>
		</section>
	);
}
