/**
 * The message box. Enter sends (Shift+Enter is a newline); while the agent runs, Enter steers, Alt+Enter
 * queues a follow-up and Escape aborts. The draft is mirrored to the daemon (debounced) so extensions reading
 * `ctx.ui.getEditorText()` see what is being typed, and an extension's `setEditorText` replaces it here.
 * pi's habits live here too: ↑/↓ history, `@` file completion, images by paste, drop or picker, `!bash` (the
 * daemon runs it), and the chamber's page commands (/tree, /fork, /resume, /export, /copy, /session, /hotkeys).
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { ApiError, api, describeError, type ImageAttachment } from "../api.js";
import { onForkRequest, requestOpenSession } from "../habit-events.js";
import { rememberSent, usePromptHistory } from "../history.js";
import { isImage, toAttachment } from "../images.js";
import { fileQueryAt, runPageCommand } from "../page-commands.js";
import { useDraft } from "../drafts.js";
import type { CommandView, SessionHolder, SessionView } from "../types.js";
import { CommandSuggestions, filterCommands } from "./CommandSuggestions.js";
import { FileSuggestions, ImageStrip, QueuedMessages } from "./ComposerExtras.js";
import { onAttachFileRequest, PhoneAttach } from "./FilesComposer.js";
import { type HabitDialog, HabitDialogs } from "./HabitDialogs.js";
import { Icon } from "./Icon.js";
import { useToast } from "./Toasts.js";

type Mode = "prompt" | "steer" | "follow-up";

const FILE_QUERY_MS = 120;

interface ComposerProps {
	sessionId: string;
	/** The session as reduced: history, the last answer, the queue, the tree's and fork's inputs. */
	view: SessionView;
	streaming: boolean;
	commands: CommandView[];
	editorText: string;
	editorRevision: number;
	snapshotRevision: number;
	/** Another pier holds the session: a refusal that said so is stale once it lets go. */
	heldBy?: SessionHolder;
	onPin: (command: string) => void;
	/** Set by the parent so global shortcuts (Ctrl+K) can focus the box. */
	inputRef?: { current: HTMLTextAreaElement | null };
}

export function Composer({
	sessionId,
	view,
	streaming,
	commands,
	editorText,
	editorRevision,
	snapshotRevision,
	heldBy,
	onPin,
	inputRef,
}: ComposerProps) {
	const running = view.session.live;
	// A new callback when the session starts, so a draft typed before it ran reaches its extensions.
	const mirror = useCallback((draft: string) => api.setEditor(sessionId, draft), [sessionId, running]);
	const [text, setText] = useDraft(sessionId, editorText, editorRevision, snapshotRevision, mirror);
	const [error, setErrorText] = useState<{ text: string; code?: string } | undefined>();
	const setError = (message: string | undefined, code?: string) =>
		setErrorText(message === undefined ? undefined : { text: message, ...(code ? { code } : {}) });
	// "In use" was true when it was said; once the other pier lets go (the stream says so), it is not.
	const held = heldBy !== undefined;
	useEffect(() => {
		if (!held) setErrorText((e) => (e?.code === "in_use" ? undefined : e));
	}, [held]);
	const [sending, setSending] = useState(false);
	const [highlight, setHighlight] = useState(-1);
	const [dismissedFor, setDismissedFor] = useState<string | undefined>();
	const [focused, setFocused] = useState(false);
	const ownRef = useRef<HTMLTextAreaElement | null>(null);
	const box = inputRef ?? ownRef;
	const toast = useToast();
	const history = usePromptHistory(sessionId, view.rows);
	const [images, setImages] = useState<ImageAttachment[]>([]);
	/** Paths picked from the `@` list: sent as pi's @file attachments while `@path` is still in the text. */
	const [picked, setPicked] = useState<string[]>([]);
	const [caret, setCaret] = useState(0);
	const [files, setFiles] = useState<string[]>([]);
	const [dialog, setDialog] = useState<HabitDialog | undefined>();
	const fileInput = useRef<HTMLInputElement | null>(null);

	useEffect(() => onForkRequest((entryId) => setDialog({ kind: "fork", entryId })), []);
	// A file attached from the file browser: `@path` at the end, sent as an @file like one picked from the `@` list.
	useEffect(
		() =>
			onAttachFileRequest((path) => {
				setText((t) => `${t}${t && !/\s$/.test(t) ? " " : ""}@${path} `);
				setPicked((list) => (list.includes(path) ? list : [...list, path]));
				requestAnimationFrame(() => box.current?.focus());
			}),
		[],
	);
	const onDialogError = useCallback((message: string) => toast(message, "error"), [toast]);

	const query = /^\/\S*$/.test(text) ? text.slice(1) : undefined;
	const suggestions = useMemo(() => (query === undefined ? [] : filterCommands(commands, query)), [commands, query]);
	const showSuggestions = focused && query !== undefined && suggestions.length > 0 && dismissedFor !== text;

	const fileQuery = query === undefined ? fileQueryAt(text, caret) : undefined;
	const fileQ = fileQuery?.query;
	useEffect(() => {
		if (fileQ === undefined) {
			setFiles([]);
			return;
		}
		let live = true;
		const timer = setTimeout(() => {
			api.files(sessionId, fileQ).then(
				(r) => live && setFiles(r.files),
				() => live && setFiles([]),
			);
		}, FILE_QUERY_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [fileQ, sessionId]);
	const showFiles = focused && fileQuery !== undefined && files.length > 0 && dismissedFor !== text;

	useEffect(() => setHighlight(-1), [query, fileQ]);

	const pickFile = (path: string) => {
		if (!fileQuery) return;
		const before = text.slice(0, fileQuery.start);
		const after = text.slice(caret);
		// A directory keeps completing inside it; a file ends the token.
		const inserted = path.endsWith("/") ? `@${path}` : `@${path} `;
		const next = `${before}${inserted}${after}`;
		setText(next);
		if (!path.endsWith("/")) setPicked((list) => (list.includes(path) ? list : [...list, path]));
		const at = before.length + inserted.length;
		setCaret(at);
		setHighlight(-1);
		requestAnimationFrame(() => {
			box.current?.focus();
			box.current?.setSelectionRange(at, at);
		});
	};

	const addImages = async (list: Iterable<File>) => {
		for (const file of list) {
			try {
				const image = await toAttachment(file);
				setImages((all) => [...all, image]);
			} catch (err) {
				setError(describeError(err));
			}
		}
	};

	const pageCommand = (message: string) =>
		runPageCommand(message, { sessionId, rows: view.rows, openDialog: setDialog, toast });

	const complete = (name: string) => {
		setText(`/${name} `);
		setHighlight(-1);
		box.current?.focus();
	};

	const submit = async (mode: Mode) => {
		const message = text;
		if ((!message.trim() && images.length === 0) || sending) return;
		setSending(true);
		setError(undefined);
		try {
			history.reset();
			if (await pageCommand(message)) {
				rememberSent(sessionId, message);
				setText("");
				return;
			}
			const attached = picked.filter((p) => message.includes(`@${p}`));
			// `!bash` runs while the agent streams too (pi records it after the run), so it always goes as a prompt.
			if (mode === "prompt" || message.startsWith("!"))
				await api.prompt(sessionId, message, { files: attached, images });
			else if (mode === "steer") await api.steer(sessionId, message);
			else await api.followUp(sessionId, message);
			rememberSent(sessionId, message);
			setText("");
			setImages([]);
			setPicked([]);
		} catch (err) {
			setError(
				err instanceof ApiError && err.code === "busy"
					? "The agent is still working. Steer to redirect it, or queue this as a follow-up."
					: describeError(err),
				err instanceof ApiError ? err.code : undefined,
			);
		} finally {
			setSending(false);
			// Back to the box, unless what the message started took the focus (a dialog, a ctx.ui.custom screen).
			const active = document.activeElement;
			if (!active || active === document.body || active.closest(".composer")) box.current?.focus();
		}
	};

	const abort = async () => {
		try {
			await api.abort(sessionId);
		} catch (err) {
			setError(describeError(err));
		}
	};

	/** ↑/↓ move through an open list, Tab (or Enter on a highlighted entry) picks, Escape closes: true if handled. */
	const listKeys = (e: KeyboardEvent, count: number, pick: (index: number) => void): boolean => {
		if (e.key === "ArrowDown" || e.key === "ArrowUp") {
			e.preventDefault();
			setHighlight((h) => (e.key === "ArrowDown" ? (h + 1) % count : h <= 0 ? count - 1 : h - 1));
			return true;
		}
		if ((e.key === "Tab" && !e.shiftKey) || (e.key === "Enter" && !e.shiftKey && highlight >= 0)) {
			e.preventDefault();
			pick(Math.max(0, highlight));
			return true;
		}
		if (e.key === "Escape") {
			e.preventDefault();
			setDismissedFor(text);
			return true;
		}
		return false;
	};

	const onKeyDown = (e: KeyboardEvent) => {
		const walking = history.browsing() && (e.key === "ArrowUp" || e.key === "ArrowDown");
		if (!walking && showFiles && listKeys(e, files.length, (i) => files[i] && pickFile(files[i]))) return;
		const pickCommand = (i: number) => suggestions[i] && complete(suggestions[i].name);
		if (!walking && showSuggestions && listKeys(e, suggestions.length, pickCommand)) return;
		if ((e.key === "ArrowUp" || e.key === "ArrowDown") && !e.altKey && (walking || (!showFiles && !showSuggestions))) {
			const el = e.currentTarget as HTMLTextAreaElement;
			const recalled = history.step(e.key === "ArrowUp" ? "older" : "newer", text, el.selectionStart ?? 0);
			if (recalled !== undefined) {
				e.preventDefault();
				setText(recalled);
				requestAnimationFrame(() => box.current?.setSelectionRange(recalled.length, recalled.length));
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
		// biome-ignore lint/a11y/noStaticElementInteractions: a drop target for images; the picker button is the accessible way
		<div
			class="composer"
			onDragOver={(e) => {
				if ([...(e.dataTransfer?.items ?? [])].some((i) => i.kind === "file")) e.preventDefault();
			}}
			onDrop={(e) => {
				const dropped = [...(e.dataTransfer?.files ?? [])].filter(isImage);
				if (dropped.length === 0) return;
				e.preventDefault();
				void addImages(dropped);
			}}
		>
			{dialog && (
				<HabitDialogs
					dialog={dialog}
					view={view}
					onClose={() => {
						setDialog(undefined);
						box.current?.focus();
					}}
					onOpenSession={requestOpenSession}
					onError={onDialogError}
				/>
			)}
			<QueuedMessages
				queue={view.queue}
				onCancel={() => {
					api.clearQueue(sessionId).then(
						(taken) => {
							const back = [...taken.steering, ...taken.followUp].join("\n\n");
							if (back) setText((t) => (t ? `${back}\n\n${t}` : back));
						},
						(err) => setError(describeError(err)),
					);
				}}
			/>
			<ImageStrip images={images} onRemove={(i) => setImages((all) => all.filter((_, j) => j !== i))} />
			{showFiles && <FileSuggestions files={files} highlight={highlight} onPick={pickFile} />}
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
					placeholder={
						streaming ? "Steer the agent, or queue a follow-up…" : "Message, / for commands, @ for files, ! for bash"
					}
					class={text.startsWith("!") ? "bash-mode" : undefined}
					aria-label="Message"
					aria-autocomplete="list"
					onInput={(e) => {
						setText(e.currentTarget.value);
						setCaret(e.currentTarget.selectionStart ?? e.currentTarget.value.length);
						setError(undefined);
						history.reset();
					}}
					onKeyUp={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
					onClick={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
					onPaste={(e) => {
						const pasted = [...(e.clipboardData?.files ?? [])].filter(isImage);
						if (pasted.length === 0) return;
						e.preventDefault();
						void addImages(pasted);
					}}
					onKeyDown={onKeyDown}
					onFocus={() => setFocused(true)}
					onBlur={() => setFocused(false)}
				/>
				<div class="composer-buttons">
					<input
						ref={fileInput}
						type="file"
						accept="image/png,image/jpeg,image/gif,image/webp"
						multiple
						hidden
						data-testid="image-input"
						onChange={(e) => {
							const chosen = [...(e.currentTarget.files ?? [])];
							e.currentTarget.value = "";
							void addImages(chosen);
						}}
					/>
					<PhoneAttach sessionId={sessionId} onImages={(list) => void addImages(list)} onError={setError} />
					<button
						type="button"
						class="icon-button attach-image"
						data-testid="attach-image"
						title="Attach an image (or paste / drop one)"
						aria-label="Attach an image"
						onClick={() => fileInput.current?.click()}
					>
						<Icon name="plus" />
					</button>
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
							disabled={sending || (!text.trim() && images.length === 0)}
							onClick={() => void submit("prompt")}
						>
							Send
						</button>
					)}
				</div>
			</div>
			{error && (
				<div class="inline-error" role="alert" data-testid="composer-error">
					{error.text}
				</div>
			)}
		</div>
	);
}
