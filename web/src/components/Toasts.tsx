/** Transient notices (extension.notify and failed actions), shown in a corner and dismissed by time or click. */
import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useMemo, useRef, useState } from "preact/hooks";
import { visibleText } from "../visible.js";

export type ToastLevel = "info" | "warning" | "error";

interface Toast {
	id: number;
	message: string;
	level: ToastLevel;
}

type Notify = (message: string, level?: ToastLevel) => void;

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
		(message, level = "info") => {
			const id = nextId.current++;
			setToasts((list) => [...list, { id, message, level }].slice(-MAX_TOASTS));
			// Errors stay longer: they are the ones people need to read.
			setTimeout(() => dismiss(id), level === "error" ? 10_000 : 5_000);
		},
		[dismiss],
	);
	const value = useMemo(() => notify, [notify]);
	return (
		<ToastContext.Provider value={value}>
			{children}
			<div class="toasts" aria-live="polite">
				{toasts.map((t) => (
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
				))}
			</div>
		</ToastContext.Provider>
	);
}
