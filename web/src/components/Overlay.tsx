/**
 * A protocol extension's overlay (ctx.overlay / `/overlay <id>`): the chamber draws the frame, the rows the
 * extension pushed and, when it declared one, the editor; the extension hears keys as meanings (scroll_up, abort,
 * …) and the editor's text as a submit, as in pi's terminal. A capturing overlay is a modal over the session; a
 * non-capturing one is a panel beside the composer that leaves the keyboard alone. Escape (or ×) closes it for
 * every device: the server ends it and each page's copy leaves with the event.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { OpenOverlay, OverlayInput } from "../types.js";
import { visible } from "../visible.js";

type KeyAction = Extract<OverlayInput, { kind: "key" }>["action"];

interface OverlayProps {
	sessionId: string;
	overlay: OpenOverlay | undefined;
	/** A failed submit's text, handed back while the editor is still empty. */
	returnedDraft?: { text: string; n: number };
	onDone?: () => void;
}

export function OverlayLayer({ sessionId, overlay, returnedDraft, onDone }: OverlayProps) {
	const had = useRef(overlay !== undefined);
	useEffect(() => {
		if (had.current && !overlay) onDone?.();
		had.current = overlay !== undefined;
	}, [overlay, onDone]);
	if (!overlay) return null;
	return (
		<div
			class={overlay.nonCapturing ? "overlay-layer overlay-layer-side" : "dialog-layer overlay-layer"}
			data-testid="overlay-layer"
		>
			<OverlayPanel key={overlay.id} sessionId={sessionId} overlay={overlay} returnedDraft={returnedDraft} />
		</div>
	);
}

/** Keys with a meaning of their own outside the editor (inside it, Home/End and the arrows move the caret). */
const KEYS: Record<string, KeyAction> = {
	ArrowUp: "scroll_up",
	ArrowDown: "scroll_down",
	PageUp: "page_up",
	PageDown: "page_down",
	Home: "home",
	End: "end",
};

const ROW_PX = 22;

function OverlayPanel({
	sessionId,
	overlay: open,
	returnedDraft,
}: {
	sessionId: string;
	overlay: OpenOverlay;
	returnedDraft: OverlayProps["returnedDraft"];
}) {
	const [draft, setDraft] = useState(open.input?.value ?? "");
	const [error, setError] = useState<string | undefined>();
	const rows = useRef<HTMLDivElement>(null);
	const editor = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
	const root = useRef<HTMLElement>(null);
	const seenDraft = useRef(returnedDraft?.n);

	useEffect(() => {
		if (open.nonCapturing) return;
		(editor.current ?? root.current)?.focus();
	}, [open.nonCapturing]);

	useEffect(() => {
		if (!returnedDraft || returnedDraft.n === seenDraft.current) return;
		seenDraft.current = returnedDraft.n;
		setDraft((current) => (current === "" ? returnedDraft.text : current));
	}, [returnedDraft]);

	const send = async (input: OverlayInput) => {
		setError(undefined);
		try {
			await api.overlayInput(sessionId, input);
		} catch (err) {
			setError(describeError(err));
		}
	};
	const key = (action: KeyAction) => void send({ id: open.id, kind: "key", action });
	const scroll = (action: KeyAction) => {
		const el = rows.current;
		if (!el) return;
		const page = Math.max(ROW_PX, el.clientHeight - ROW_PX);
		const by: Partial<Record<KeyAction, number>> = {
			scroll_up: -ROW_PX,
			scroll_down: ROW_PX,
			page_up: -page,
			page_down: page,
		};
		if (action === "home") el.scrollTop = 0;
		else if (action === "end") el.scrollTop = el.scrollHeight;
		else el.scrollTop += by[action] ?? 0;
	};
	const submit = () => {
		const text = draft;
		if (text.trim() === "") return;
		setDraft("");
		void send({ id: open.id, kind: "submit", text });
	};
	const titleId = `overlay-title-${open.id}`;
	const multiline = open.input?.multiline ?? false;

	return (
		<section
			ref={root}
			class="dialog overlay"
			role="dialog"
			aria-modal={open.nonCapturing ? undefined : "true"}
			aria-labelledby={titleId}
			tabIndex={-1}
			data-testid="overlay"
			data-overlay-id={open.id}
			onKeyDown={(e) => {
				const inEditor = e.target === editor.current;
				if (e.key === "Escape") {
					e.preventDefault();
					e.stopPropagation();
					void send({ id: open.id, kind: "close" });
				} else if (e.key === "t" && e.ctrlKey) {
					e.preventDefault();
					key("toggle_mode");
				} else if (e.key === "Enter" && inEditor && !(multiline && e.shiftKey)) {
					e.preventDefault();
					submit();
				} else {
					const action = KEYS[e.key];
					// In the editor the caret keys are the editor's, except ↑/↓ in a one-line editor (rpi's TUI).
					const caret = inEditor && (multiline || e.key === "Home" || e.key === "End");
					if (!action || caret) return;
					e.preventDefault();
					scroll(action);
					key(action);
				}
			}}
		>
			<header class="dialog-head">
				<h2 id={titleId}>{visible(open.title)}</h2>
				<span class="muted overlay-owner">{visible(open.extensionId)}</span>
				<button
					type="button"
					class="overlay-close"
					aria-label="Close"
					data-testid="overlay-close"
					onClick={() => void send({ id: open.id, kind: "close" })}
				>
					×
				</button>
			</header>
			<div class="overlay-rows" ref={rows} data-testid="overlay-rows">
				{open.rows.length === 0 && <div class="overlay-row muted">(no rows)</div>}
				{open.rows.map((row, i) => (
					// Rows have no identity of their own: a new set replaces the old one whole.
					<div class="overlay-row" data-style={row.style} data-testid="overlay-row" key={i}>
						{visible(row.text)}
					</div>
				))}
			</div>
			{(open.status || error) && (
				<p class="overlay-status" data-testid="overlay-status" role="status">
					{visible(error ?? open.status)}
				</p>
			)}
			{open.input && (
				<form
					class="overlay-editor"
					onSubmit={(e) => {
						e.preventDefault();
						submit();
					}}
				>
					{multiline ? (
						<textarea
							ref={editor}
							rows={3}
							value={draft}
							placeholder={open.input.placeholder}
							data-testid="overlay-input"
							onInput={(e) => setDraft(e.currentTarget.value)}
						/>
					) : (
						<input
							ref={editor}
							value={draft}
							placeholder={open.input.placeholder}
							data-testid="overlay-input"
							onInput={(e) => setDraft(e.currentTarget.value)}
						/>
					)}
					<button type="submit" class="primary" data-testid="overlay-send" disabled={draft.trim() === ""}>
						Send
					</button>
				</form>
			)}
		</section>
	);
}
