/**
 * The in-page confirm: `window.confirm` blocks the page (and the event stream's handlers with it) and cannot
 * be styled or driven by tests, so destructive actions ask through this modal instead.
 */
import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import { visibleText } from "../visible.js";

interface Ask {
	message: string;
	confirmLabel: string;
	danger: boolean;
	resolve: (ok: boolean) => void;
}

type AskFn = (message: string, opts?: { confirmLabel?: string; danger?: boolean }) => Promise<boolean>;

const ConfirmContext = createContext<AskFn>(async () => false);

export function useConfirm(): AskFn {
	return useContext(ConfirmContext);
}

export function ConfirmProvider({ children }: { children: ComponentChildren }) {
	const [pending, setPending] = useState<Ask | undefined>();
	const ask = useCallback<AskFn>(
		(message, opts) =>
			new Promise<boolean>((resolve) => {
				setPending((prev) => {
					// A second question replaces the first, which counts as declined.
					prev?.resolve(false);
					return { message, confirmLabel: opts?.confirmLabel ?? "Confirm", danger: opts?.danger ?? false, resolve };
				});
			}),
		[],
	);
	const answer = (ok: boolean) => {
		pending?.resolve(ok);
		setPending(undefined);
	};
	return (
		<ConfirmContext.Provider value={ask}>
			{children}
			{pending && <ConfirmModal ask={pending} onAnswer={answer} />}
		</ConfirmContext.Provider>
	);
}

function ConfirmModal({ ask, onAnswer }: { ask: Ask; onAnswer: (ok: boolean) => void }) {
	const noRef = useRef<HTMLButtonElement>(null);
	useEffect(() => noRef.current?.focus(), []);
	return (
		<div class="modal-backdrop">
			<div
				class="modal"
				role="alertdialog"
				aria-modal="true"
				aria-label="Confirm"
				onKeyDown={(e) => {
					if (e.key === "Escape") {
						e.stopPropagation();
						onAnswer(false);
					}
				}}
			>
				<p class="modal-message">{visibleText(ask.message)}</p>
				<div class="modal-buttons">
					<button type="button" ref={noRef} data-testid="confirm-no" onClick={() => onAnswer(false)}>
						Cancel
					</button>
					<button
						type="button"
						class={ask.danger ? "danger" : "primary"}
						data-testid="confirm-yes"
						onClick={() => onAnswer(true)}
					>
						{ask.confirmLabel}
					</button>
				</div>
			</div>
		</div>
	);
}
