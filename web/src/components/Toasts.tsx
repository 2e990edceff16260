/** Transient notices (extension.notify and failed actions), shown in a corner and dismissed by time or click. */
import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useMemo, useRef, useState } from "preact/hooks";
import { visibleText } from "../visible.js";

export type ToastLevel = "info" | "warning" | "error";

/** A toast's one button besides dismissing it (Undo after a delete). */
export interface ToastAction {
	label: string;
	run: () => void;
	/** The action works until then (ms since the epoch): the toast stays as long, or until dismissed. */
	until?: number;
}

interface Toast {
	id: number;
	message: string;
	level: ToastLevel;
	action?: ToastAction;
}

type Notify = (message: string, level?: ToastLevel, action?: ToastAction) => void;

const ToastContext = createContext<Notify>(() => {});

export function useToast(): Notify {
	return useContext(ToastContext);
}

const MAX_TOASTS = 5;

export function ToastProvider({ children }: { children: ComponentChildren }) {
	const [toasts, setToasts] = useState<Toast[]>([]);
	const nextId = useRef(1);
	const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
	const notify = useCallback<Notify>(
		(message, level = "info", action) => {
			const id = nextId.current++;
			setToasts((list) => [...list, { id, message, level, ...(action ? { action } : {}) }].slice(-MAX_TOASTS));
			// Errors and offers to undo stay longer: they are the ones people need to read or act on.
			const shown =
				action?.until !== undefined ? action.until - Date.now() : level === "error" || action ? 10_000 : 5_000;
			// setTimeout's longest delay is about 24.8 days.
			setTimeout(() => dismiss(id), Math.min(Math.max(shown, 0), 2 ** 31 - 1));
		},
		[dismiss],
	);
	const value = useMemo(() => notify, [notify]);
	return (
		<ToastContext.Provider value={value}>
			{children}
			<div class="toasts" aria-live="polite">
				{toasts.map((t) =>
					t.action ? (
						<div
							key={t.id}
							class={`toast toast-${t.level}`}
							data-testid="toast"
							data-level={t.level}
							role={t.level === "error" ? "alert" : "status"}
						>
							<span>{visibleText(t.message)}</span>
							<button
								type="button"
								class="toast-action"
								data-testid="toast-action"
								onClick={() => {
									dismiss(t.id);
									t.action?.run();
								}}
							>
								{t.action.label}
							</button>
							<button
								type="button"
								class="icon-button toast-dismiss"
								data-testid="toast-dismiss"
								aria-label="Dismiss"
								onClick={() => dismiss(t.id)}
							>
								×
							</button>
						</div>
					) : (
						<button
							type="button"
							key={t.id}
							class={`toast toast-${t.level}`}
							data-testid="toast"
							data-level={t.level}
							role={t.level === "error" ? "alert" : "status"}
							title="Dismiss"
							onClick={() => dismiss(t.id)}
						>
							{visibleText(t.message)}
						</button>
					),
				)}
			</div>
		</ToastContext.Provider>
	);
}
