/**
 * A card action. `disabled` and `loading` make it inert, `confirm` asks in-page first, `promptForArgs` collects
 * the argument string inline; firing posts to the card's own route, where the daemon checks that the command is
 * one of the card's buttons and belongs to the extension that appended the card.
 */
import { useState } from "preact/hooks";
import type { CardAction } from "../types.js";
import { useConfirm } from "./Confirm.js";
import { Icon } from "./Icon.js";
import { visible } from "../visible.js";

export type RunCommand = (command: string, args?: string) => Promise<void>;

/** Where a card is: a transcript entry, or a live panel in the side pane. The daemon checks its buttons there. */
export type CardPlace = { entry: string } | { panel: string };

/** A card's button: the daemon runs it only if it is the card's, for a command of the card's own extension. */
export type RunCardCommand = (place: CardPlace, command: string, args?: string) => Promise<void>;

export function ActionButton({ action, onCommand }: { action: CardAction; onCommand: RunCommand }) {
	const confirm = useConfirm();
	const [prompting, setPrompting] = useState(false);
	const [argText, setArgText] = useState(action.args ?? "");
	const [busy, setBusy] = useState(false);
	const spinning = action.loading || busy;
	const inert = action.disabled || spinning;

	const fire = async (args: string | undefined) => {
		if (action.confirm) {
			const ok = await confirm(action.confirm, { confirmLabel: action.label, danger: action.variant === "danger" });
			if (!ok) return;
		}
		setBusy(true);
		try {
			await onCommand(action.command, args);
			setPrompting(false);
		} finally {
			setBusy(false);
		}
	};

	const onClick = () => {
		if (inert) return;
		if (action.promptForArgs) setPrompting((p) => !p);
		else void fire(action.args);
	};

	return (
		<span class="action">
			<button
				type="button"
				class={`action-button variant-${action.variant ?? "secondary"}`}
				data-testid="card-action"
				data-command={action.command}
				disabled={inert}
				aria-busy={spinning}
				onClick={onClick}
			>
				{spinning ? <span class="spinner" aria-hidden="true" /> : <Icon name={action.icon} />}
				<span>{visible(action.label)}</span>
			</button>
			{prompting && action.promptForArgs && (
				<form
					class="action-args"
					onSubmit={(e) => {
						e.preventDefault();
						if (!inert) void fire(argText);
					}}
				>
					<label>
						{action.promptForArgs.label && <span class="action-args-label">{visible(action.promptForArgs.label)}</span>}
						<input
							data-testid="action-args-input"
							value={argText}
							placeholder={action.promptForArgs.placeholder}
							maxLength={2000}
							// biome-ignore lint/a11y/noAutofocus: the input appears because the user just asked for it
							autoFocus
							onInput={(e) => setArgText(e.currentTarget.value)}
							onKeyDown={(e) => {
								if (e.key === "Escape") {
									e.stopPropagation();
									setPrompting(false);
								}
							}}
						/>
					</label>
					<button type="submit" class="primary" data-testid="action-args-submit" disabled={inert}>
						Run
					</button>
				</form>
			)}
		</span>
	);
}
