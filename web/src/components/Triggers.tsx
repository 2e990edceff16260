/**
 * User-authored command triggers: pinned slash commands shown as quick-action buttons, each optionally bound
 * to a key combo. Stored in the daemon's ui-settings so every device shares them.
 */
import { useState } from "preact/hooks";
import { COMMAND_NAME } from "../../../src/chamber/ui/descriptors.js";
import { describeError } from "../api.js";
import { mintToken } from "../app-frame.js";
import { comboFromEvent, isBuiltinShortcut } from "../shortcuts.js";
import type { CommandTrigger, CommandView } from "../types.js";
import { Icon, IconButton } from "./Icon.js";

export function TriggerBar({
	triggers,
	onFire,
	onSettings,
}: {
	triggers: CommandTrigger[];
	onFire: (t: CommandTrigger) => void;
	onSettings: () => void;
}) {
	return (
		<div class="trigger-bar">
			{triggers.map((t) => (
				<button
					type="button"
					key={t.id}
					class="trigger"
					data-testid="trigger-button"
					data-command={t.command}
					data-trigger-id={t.id}
					title={`/${t.command}${t.args ? ` ${t.args}` : ""}${t.shortcut ? ` (${t.shortcut})` : ""}`}
					onClick={() => onFire(t)}
				>
					<Icon name="zap" />
					<span>{t.label || `/${t.command}`}</span>
					{t.shortcut && <kbd>{t.shortcut}</kbd>}
				</button>
			))}
			<IconButton
				icon="settings"
				label="Command triggers and shortcuts"
				testId="trigger-settings"
				onClick={onSettings}
			/>
		</div>
	);
}

/** Why a trigger cannot be saved, or undefined. */
export function triggerProblem(t: CommandTrigger, others: CommandTrigger[]): string | undefined {
	if (!COMMAND_NAME.test(t.command)) {
		return "The command name may only use letters, digits, “:”, “_” and “-”, and must start with a letter or digit.";
	}
	if (t.shortcut) {
		if (isBuiltinShortcut(t.shortcut)) {
			return `${t.shortcut} is a built-in shortcut of the chamber and always does its own job, so a trigger cannot use it.`;
		}
		const clash = others.find((o) => o.id !== t.id && o.shortcut === t.shortcut);
		if (clash) return `${t.shortcut} already runs /${clash.command}.`;
	}
	return undefined;
}

export function newTriggerId(): string {
	return `t_${mintToken().slice(0, 12)}`;
}

interface SettingsProps {
	triggers: CommandTrigger[];
	commands: CommandView[];
	/** The trigger to open in the editor (a freshly pinned one). */
	editId?: string;
	onSave: (triggers: CommandTrigger[]) => Promise<void>;
	onClose: () => void;
}

export function TriggerSettings({ triggers, commands, editId, onSave, onClose }: SettingsProps) {
	const [editing, setEditing] = useState<CommandTrigger | undefined>(() => triggers.find((t) => t.id === editId));
	const [error, setError] = useState<string | undefined>();
	const [saving, setSaving] = useState(false);

	const save = async (next: CommandTrigger[]) => {
		setSaving(true);
		setError(undefined);
		try {
			await onSave(next);
			return true;
		} catch (err) {
			setError(describeError(err));
			return false;
		} finally {
			setSaving(false);
		}
	};

	return (
		<section class="trigger-settings" data-testid="trigger-settings-panel" aria-label="Command triggers">
			<header>
				<h3>Command triggers</h3>
				<IconButton icon="x" label="Close" onClick={onClose} />
			</header>
			<p class="muted">
				Pinned commands appear as buttons next to the composer. A shortcut runs one from anywhere on the page; the
				chamber's own keys ({"Enter, Escape, Tab, Ctrl+K, …"}) always win.
			</p>
			{triggers.length > 0 && (
				<ul class="trigger-list">
					{triggers.map((t) => (
						<li key={t.id}>
							<span class="trigger-desc">
								{t.label ? `${t.label} — ` : ""}/{t.command}
								{t.args ? ` ${t.args}` : ""}
							</span>
							{t.shortcut && <kbd>{t.shortcut}</kbd>}
							<button type="button" onClick={() => setEditing(t)}>
								Edit
							</button>
							<button
								type="button"
								class="danger"
								disabled={saving}
								data-testid="trigger-remove"
								onClick={() => void save(triggers.filter((o) => o.id !== t.id))}
							>
								Remove
							</button>
						</li>
					))}
				</ul>
			)}
			{editing ? (
				<TriggerForm
					key={editing.id}
					trigger={editing}
					triggers={triggers}
					commands={commands}
					saving={saving}
					onCancel={() => setEditing(undefined)}
					onSubmit={async (t) => {
						const exists = triggers.some((o) => o.id === t.id);
						const next = exists ? triggers.map((o) => (o.id === t.id ? t : o)) : [...triggers, t];
						if (await save(next)) setEditing(undefined);
					}}
				/>
			) : (
				<button
					type="button"
					disabled={triggers.length >= 32}
					onClick={() => setEditing({ id: newTriggerId(), command: commands[0]?.name ?? "" })}
				>
					Add trigger
				</button>
			)}
			{error && (
				<div class="inline-error" role="alert" data-testid="trigger-error">
					{error}
				</div>
			)}
		</section>
	);
}

interface FormProps {
	trigger: CommandTrigger;
	triggers: CommandTrigger[];
	commands: CommandView[];
	saving: boolean;
	onCancel: () => void;
	onSubmit: (t: CommandTrigger) => void;
}

function TriggerForm({ trigger, triggers, commands, saving, onCancel, onSubmit }: FormProps) {
	const [draft, setDraft] = useState<CommandTrigger>(trigger);
	const [touched, setTouched] = useState(false);
	const problem = triggerProblem(draft, triggers);
	const set = (patch: Partial<CommandTrigger>) => {
		setTouched(true);
		setDraft((d) => ({ ...d, ...patch }));
	};
	return (
		<form
			class="trigger-form"
			onSubmit={(e) => {
				e.preventDefault();
				setTouched(true);
				if (problem) return;
				const clean: CommandTrigger = { id: draft.id, command: draft.command };
				if (draft.args) clean.args = draft.args;
				if (draft.label) clean.label = draft.label;
				if (draft.shortcut) clean.shortcut = draft.shortcut;
				onSubmit(clean);
			}}
		>
			<label class="field">
				<span class="field-label">Command</span>
				<input
					list="trigger-commands"
					data-testid="trigger-command"
					value={draft.command}
					maxLength={128}
					onInput={(e) => set({ command: e.currentTarget.value.replace(/^\//, "") })}
				/>
				<datalist id="trigger-commands">
					{commands.map((c) => (
						<option key={c.name} value={c.name}>
							{c.description}
						</option>
					))}
				</datalist>
			</label>
			<label class="field">
				<span class="field-label">Arguments</span>
				<input
					data-testid="trigger-args"
					value={draft.args ?? ""}
					maxLength={2000}
					onInput={(e) => set({ args: e.currentTarget.value })}
				/>
			</label>
			<label class="field">
				<span class="field-label">Button label</span>
				<input
					data-testid="trigger-label"
					value={draft.label ?? ""}
					placeholder={`/${draft.command}`}
					maxLength={64}
					onInput={(e) => set({ label: e.currentTarget.value })}
				/>
			</label>
			<div class="field">
				<span class="field-label">Shortcut</span>
				<ShortcutRecorder value={draft.shortcut} onChange={(shortcut) => set({ shortcut })} />
			</div>
			{problem && (touched || draft.shortcut) && (
				<div class="inline-error" role="alert" data-testid="trigger-problem">
					{problem}
				</div>
			)}
			<div class="dialog-buttons">
				<button type="button" onClick={onCancel}>
					Cancel
				</button>
				<button type="submit" class="primary" data-testid="trigger-save" disabled={saving || !!problem}>
					Save
				</button>
			</div>
		</form>
	);
}

/**
 * Focus it and press a combo. It swallows the keys it records (including built-ins, so the user sees why one
 * is refused instead of having the page act on it); Backspace or Delete alone clears.
 */
function ShortcutRecorder({ value, onChange }: { value?: string; onChange: (v: string | undefined) => void }) {
	const [recording, setRecording] = useState(false);
	return (
		<span class="shortcut-recorder">
			<input
				readOnly
				data-testid="shortcut-recorder"
				class={recording ? "recording" : ""}
				value={recording && !value ? "Press a key combination…" : (value ?? "")}
				placeholder="Click, then press keys"
				onFocus={() => setRecording(true)}
				onBlur={() => setRecording(false)}
				onKeyDown={(e) => {
					if (e.key === "Tab" && !e.ctrlKey && !e.altKey && !e.metaKey) return; // keep keyboard navigation
					e.preventDefault();
					e.stopPropagation();
					if ((e.key === "Backspace" || e.key === "Delete") && !e.ctrlKey && !e.altKey && !e.metaKey && !e.shiftKey) {
						onChange(undefined);
						return;
					}
					const combo = comboFromEvent(e);
					if (combo) onChange(combo);
				}}
			/>
			{value && (
				<button type="button" onClick={() => onChange(undefined)}>
					Clear
				</button>
			)}
		</span>
	);
}
