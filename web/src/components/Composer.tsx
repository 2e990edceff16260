/**
 * The message box. Enter sends (Shift+Enter is a newline); while the agent runs, Enter steers, Alt+Enter
 * queues a follow-up and Escape aborts. The draft is mirrored to the daemon (debounced) so extensions reading
 * `ctx.ui.getEditorText()` see what is being typed, and an extension's `setEditorText` replaces it here.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, api, describeError } from "../api.js";
import type { CommandView } from "../types.js";
import { CommandSuggestions, filterCommands } from "./CommandSuggestions.js";

type Mode = "prompt" | "steer" | "follow-up";

const EDITOR_SYNC_MS = 400;

interface ComposerProps {
	sessionId: string;
	streaming: boolean;
	commands: CommandView[];
	editorText: string;
	editorRevision: number;
	onPin: (command: string) => void;
	/** Set by the parent so global shortcuts (Ctrl+K) can focus the box. */
	inputRef?: { current: HTMLTextAreaElement | null };
}

export function Composer({
	sessionId,
	streaming,
	commands,
	editorText,
	editorRevision,
	onPin,
	inputRef,
}: ComposerProps) {
	const [text, setText] = useState(editorText);
	const [error, setError] = useState<string | undefined>();
	const [sending, setSending] = useState(false);
	const [highlight, setHighlight] = useState(-1);
	const [dismissedFor, setDismissedFor] = useState<string | undefined>();
	const [focused, setFocused] = useState(false);
	const ownRef = useRef<HTMLTextAreaElement | null>(null);
	const box = inputRef ?? ownRef;
	const synced = useRef<string | undefined>(editorText);

	// An extension replaced the text (or a snapshot arrived): adopt it and do not echo it back.
	const seenRevision = useRef(editorRevision);
	useEffect(() => {
		if (seenRevision.current === editorRevision) return;
		seenRevision.current = editorRevision;
		synced.current = editorText;
		setText(editorText);
	}, [editorRevision, editorText]);

	useEffect(() => {
		if (text === synced.current) return;
		const timer = setTimeout(() => {
			synced.current = text;
			api.setEditor(sessionId, text).catch(() => {
				// The mirror is best effort; the next keystroke retries.
				synced.current = undefined;
			});
		}, EDITOR_SYNC_MS);
		return () => clearTimeout(timer);
	}, [text, sessionId]);

	const query = /^\/\S*$/.test(text) ? text.slice(1) : undefined;
	const suggestions = useMemo(() => (query === undefined ? [] : filterCommands(commands, query)), [commands, query]);
	const showSuggestions = focused && query !== undefined && suggestions.length > 0 && dismissedFor !== text;

	useEffect(() => setHighlight(-1), [query]);

	const complete = (name: string) => {
		setText(`/${name} `);
		setHighlight(-1);
		box.current?.focus();
	};

	const submit = async (mode: Mode) => {
		const message = text;
		if (!message.trim() || sending) return;
		setSending(true);
		setError(undefined);
		try {
			if (mode === "prompt") await api.prompt(sessionId, message);
			else if (mode === "steer") await api.steer(sessionId, message);
			else await api.followUp(sessionId, message);
			setText("");
		} catch (err) {
			setError(
				err instanceof ApiError && err.code === "busy"
					? "The agent is still working. Steer to redirect it, or queue this as a follow-up."
					: describeError(err),
			);
		} finally {
			setSending(false);
			box.current?.focus();
		}
	};

	const abort = async () => {
		try {
			await api.abort(sessionId);
		} catch (err) {
			setError(describeError(err));
		}
	};

	const onKeyDown = (e: KeyboardEvent) => {
		if (showSuggestions) {
			if (e.key === "ArrowDown" || e.key === "ArrowUp") {
				e.preventDefault();
				const n = suggestions.length;
				setHighlight((h) => (e.key === "ArrowDown" ? (h + 1) % n : h <= 0 ? n - 1 : h - 1));
				return;
			}
			if (e.key === "Tab" && !e.shiftKey) {
				e.preventDefault();
				const pick = suggestions[Math.max(0, highlight)];
				if (pick) complete(pick.name);
				return;
			}
			if (e.key === "Enter" && !e.shiftKey && highlight >= 0) {
				e.preventDefault();
				const pick = suggestions[highlight];
				if (pick) complete(pick.name);
				return;
			}
			if (e.key === "Escape") {
				e.preventDefault();
				setDismissedFor(text);
				return;
			}
		}
		if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
			e.preventDefault();
			void submit(streaming ? (e.altKey ? "follow-up" : "steer") : "prompt");
			return;
		}
		if (e.key === "Escape" && streaming) {
			e.preventDefault();
			void abort();
		}
	};

	return (
		<div class="composer">
			{showSuggestions && (
				<CommandSuggestions
					commands={suggestions}
					highlight={highlight}
					onPick={complete}
					onPin={(name) => {
						setDismissedFor(text);
						onPin(name);
					}}
				/>
			)}
			<div class="composer-row">
				<textarea
					ref={box}
					data-testid="composer"
					rows={Math.min(8, Math.max(2, text.split("\n").length))}
					value={text}
					placeholder={streaming ? "Steer the agent, or queue a follow-up…" : "Message, or / for commands"}
					aria-label="Message"
					aria-autocomplete="list"
					onInput={(e) => {
						setText(e.currentTarget.value);
						setError(undefined);
					}}
					onKeyDown={onKeyDown}
					onFocus={() => setFocused(true)}
					onBlur={() => setFocused(false)}
				/>
				<div class="composer-buttons">
					{streaming ? (
						<>
							<button
								type="button"
								class="primary"
								data-testid="steer"
								disabled={sending || !text.trim()}
								title="Redirect the running agent (Enter)"
								onClick={() => void submit("steer")}
							>
								Steer
							</button>
							<button
								type="button"
								data-testid="follow-up"
								disabled={sending || !text.trim()}
								title="Queue for when the agent is done (Alt+Enter)"
								onClick={() => void submit("follow-up")}
							>
								Follow-up
							</button>
							<button
								type="button"
								class="danger"
								data-testid="abort"
								title="Stop (Escape)"
								onClick={() => void abort()}
							>
								Abort
							</button>
						</>
					) : (
						<button
							type="button"
							class="primary"
							data-testid="send"
							disabled={sending || !text.trim()}
							onClick={() => void submit("prompt")}
						>
							Send
						</button>
					)}
				</div>
			</div>
			{error && (
				<div class="inline-error" role="alert" data-testid="composer-error">
					{error}
				</div>
			)}
		</div>
	);
}
