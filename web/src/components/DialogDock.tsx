/**
 * Blocking extension dialogs (ctx.ui.select/confirm/input/editor/form), as a modal: the oldest pending one takes
 * the keyboard (Enter answers, Esc cancels, Tab stays inside) and the others wait behind it, counted. On a phone
 * it is a sheet fixed to the bottom whose buttons never scroll away. Each answer is posted once; the dialog leaves
 * when the server dismisses it, so every device showing it closes together, and focus goes back to the composer.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { DialogAnswer, DialogRequest, FormField } from "../types.js";
import { ENTER_GRACE_MS, initialFocus, trapTab, walkOptions } from "../dialog-keys.js";
import { visible, visibleText } from "../visible.js";

interface DockProps {
	sessionId: string;
	dialogs: DialogRequest[];
	/** The last dialog left: where the keyboard goes next (the composer). */
	onDone?: () => void;
}

export function DialogDock({ sessionId, dialogs, onDone }: DockProps) {
	const first = dialogs[0];
	const had = useRef(dialogs.length > 0);
	useEffect(() => {
		const has = dialogs.length > 0;
		// Only when the focus had nowhere left to be: a user who clicked elsewhere meanwhile keeps their place.
		if (had.current && !has && (document.activeElement === document.body || document.activeElement === null))
			onDone?.();
		had.current = has;
	}, [dialogs.length, onDone]);
	return (
		<div class="dialog-layer" data-testid="dialog-dock" hidden={!first}>
			{first && <Dialog key={first.requestId} sessionId={sessionId} dialog={first} waiting={dialogs.length - 1} />}
		</div>
	);
}

function Dialog({ sessionId, dialog, waiting }: { sessionId: string; dialog: DialogRequest; waiting: number }) {
	const [error, setError] = useState<string | undefined>();
	const [sending, setSending] = useState(false);
	const root = useRef<HTMLElement>(null);
	// Armed once the grace period is over: until then an Enter was meant for the composer (the page shows it too).
	const [armed, setArmed] = useState(false);
	useEffect(() => {
		const timer = setTimeout(() => setArmed(true), ENTER_GRACE_MS);
		return () => clearTimeout(timer);
	}, []);

	useEffect(() => {
		const el = root.current;
		if (!el) return;
		(initialFocus(el, dialog.method) ?? el).focus();
		// A modal keeps the keyboard: whatever takes the focus behind it (the composer refocusing itself once its
		// send returns, say) hands it back, so Enter can never send a chat message instead of answering.
		const keep = (e: FocusEvent) => {
			if (!(e.target instanceof Element) || el.contains(e.target)) return;
			// The page's own confirm (a card action's question) is a modal above this one: it keeps its focus.
			if (e.target.closest('[aria-modal="true"]')) return;
			(initialFocus(el, dialog.method) ?? el).focus();
		};
		document.addEventListener("focusin", keep);
		return () => document.removeEventListener("focusin", keep);
	}, [dialog.method]);

	const answer = async (body: DialogAnswer) => {
		setSending(true);
		setError(undefined);
		try {
			await api.answerDialog(sessionId, dialog.requestId, body);
		} catch (err) {
			setError(describeError(err));
		} finally {
			setSending(false);
		}
	};
	const cancel = () => void answer({ cancelled: true });
	const titleId = `dialog-title-${dialog.requestId}`;
	const messageId = `dialog-message-${dialog.requestId}`;

	return (
		<section
			ref={root}
			class="dialog"
			role="dialog"
			aria-modal="true"
			aria-labelledby={titleId}
			aria-describedby={dialog.message ? messageId : undefined}
			tabIndex={-1}
			data-testid="dialog"
			data-method={dialog.method}
			data-request-id={dialog.requestId}
			data-armed={armed ? "true" : undefined}
			onKeyDownCapture={(e) => {
				// Someone typing in the composer when the question appears must not answer it with their Enter.
				if (e.key === "Enter" && !armed) {
					e.preventDefault();
					e.stopPropagation();
				}
			}}
			onKeyDown={(e) => {
				if (e.key === "Escape") {
					e.stopPropagation();
					e.preventDefault();
					cancel();
				} else if (e.key === "Tab" && root.current) trapTab(e, root.current);
				else if (root.current) walkOptions(e, root.current);
			}}
		>
			<header class="dialog-head">
				<h2 id={titleId}>{visible(dialog.title)}</h2>
				<Countdown dialog={dialog} />
			</header>
			{waiting > 0 && (
				<p class="dialog-queue muted" data-testid="dialog-queue">
					{waiting} more {waiting === 1 ? "question waits" : "questions wait"} after this one
				</p>
			)}
			{dialog.message && (
				<p class="dialog-message" id={messageId}>
					{visibleText(dialog.message)}
				</p>
			)}
			<DialogBody dialog={dialog} sending={sending} onAnswer={answer} onCancel={cancel} />
			{error && (
				<div class="inline-error" role="alert" data-testid="dialog-error">
					{error}
				</div>
			)}
		</section>
	);
}

interface BodyProps {
	dialog: DialogRequest;
	sending: boolean;
	onAnswer: (body: DialogAnswer) => void;
	onCancel: () => void;
}

function CancelButton({ onCancel, sending }: { onCancel: () => void; sending: boolean }) {
	return (
		<button type="button" data-testid="dialog-cancel" disabled={sending} onClick={onCancel}>
			Cancel
		</button>
	);
}

function DialogBody({ dialog, sending, onAnswer, onCancel }: BodyProps) {
	switch (dialog.method) {
		case "select": {
			const options = dialog.options ?? [];
			return (
				<div class="dialog-body">
					<div class={options.length > 6 ? "dialog-options list" : "dialog-options"}>
						{options.map((option, i) => (
							<button
								type="button"
								key={`${i}:${option}`}
								class="dialog-option"
								data-testid="dialog-option"
								data-value={option}
								disabled={sending}
								onClick={() => onAnswer({ value: option })}
							>
								{visible(option)}
							</button>
						))}
					</div>
					<div class="dialog-buttons">
						<CancelButton onCancel={onCancel} sending={sending} />
					</div>
				</div>
			);
		}
		case "confirm":
			return (
				<div class="dialog-buttons">
					<button
						type="button"
						data-testid="dialog-confirm-no"
						disabled={sending}
						onClick={() => onAnswer({ confirmed: false })}
					>
						No
					</button>
					<button
						type="button"
						class="primary"
						data-testid="dialog-confirm-yes"
						disabled={sending}
						onClick={() => onAnswer({ confirmed: true })}
					>
						Yes
					</button>
				</div>
			);
		case "input":
		case "editor":
			return <TextAnswer dialog={dialog} sending={sending} onAnswer={onAnswer} onCancel={onCancel} />;
		case "form":
			return <FormAnswer dialog={dialog} sending={sending} onAnswer={onAnswer} onCancel={onCancel} />;
		default:
			return (
				<div class="dialog-buttons">
					<CancelButton onCancel={onCancel} sending={sending} />
				</div>
			);
	}
}

function TextAnswer({ dialog, sending, onAnswer, onCancel }: BodyProps) {
	const [text, setText] = useState(dialog.prefill ?? "");
	const multiline = dialog.method === "editor";
	return (
		<form
			class="dialog-body"
			onSubmit={(e) => {
				e.preventDefault();
				onAnswer({ value: text });
			}}
		>
			{multiline ? (
				<textarea
					data-testid="dialog-input"
					rows={8}
					value={text}
					placeholder={dialog.placeholder}
					onInput={(e) => setText(e.currentTarget.value)}
					onKeyDown={(e) => {
						// Enter is a newline in an editor; Ctrl/Meta+Enter submits.
						if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
							e.preventDefault();
							onAnswer({ value: text });
						}
					}}
				/>
			) : (
				<input
					data-testid="dialog-input"
					value={text}
					placeholder={dialog.placeholder}
					onInput={(e) => setText(e.currentTarget.value)}
				/>
			)}
			<SubmitButtons onCancel={onCancel} sending={sending} />
		</form>
	);
}

function SubmitButtons({ onCancel, sending }: { onCancel: () => void; sending: boolean }) {
	return (
		<div class="dialog-buttons">
			<CancelButton onCancel={onCancel} sending={sending} />
			<button type="submit" class="primary" data-testid="dialog-submit" disabled={sending}>
				Submit
			</button>
		</div>
	);
}

function initialValues(fields: FormField[]): Record<string, string> {
	const values: Record<string, string> = {};
	for (const f of fields) {
		if (f.type === "checkbox") values[f.id] = f.initial === "true" ? "true" : "false";
		else values[f.id] = f.initial ?? "";
	}
	return values;
}

function FormAnswer({ dialog, sending, onAnswer, onCancel }: BodyProps) {
	const fields = dialog.fields ?? [];
	const [values, setValues] = useState(() => initialValues(fields));
	const [missing, setMissing] = useState<string | undefined>();
	const set = (id: string, value: string) => {
		setValues((v) => ({ ...v, [id]: value }));
		setMissing(undefined);
	};

	const submit = (e: Event) => {
		e.preventDefault();
		const empty = fields.find((f) => f.required && f.type !== "checkbox" && !values[f.id]);
		if (empty) {
			setMissing(`${empty.label} is required.`);
			return;
		}
		setMissing(undefined);
		// Empty optional fields are left out: the server treats absent and empty alike, and absent cannot be refused.
		const out: Record<string, string> = {};
		for (const f of fields) {
			const value = values[f.id] ?? "";
			if (value !== "" || f.type === "checkbox") out[f.id] = value;
		}
		onAnswer({ values: out });
	};

	return (
		<form class="dialog-body dialog-form" onSubmit={submit} noValidate>
			{fields.map((f) => (
				<FieldInput key={f.id} field={f} value={values[f.id] ?? ""} onChange={(v) => set(f.id, v)} />
			))}
			{missing && (
				<div class="inline-error" role="alert">
					{missing}
				</div>
			)}
			<SubmitButtons onCancel={onCancel} sending={sending} />
		</form>
	);
}

function FieldInput({ field, value, onChange }: { field: FormField; value: string; onChange: (v: string) => void }) {
	const common = {
		"data-testid": "form-field",
		"data-field-id": field.id,
		id: `field-${field.id}`,
		name: field.id,
		required: field.required,
	};
	const label = (
		<span class="field-label">
			{visible(field.label)}
			{field.required && <span class="required"> *</span>}
		</span>
	);
	switch (field.type) {
		case "checkbox":
			return (
				<label class="field field-checkbox">
					<input
						type="checkbox"
						{...common}
						checked={value === "true"}
						onChange={(e) => onChange(e.currentTarget.checked ? "true" : "false")}
					/>
					{label}
				</label>
			);
		case "textarea":
			return (
				<label class="field">
					{label}
					<textarea
						{...common}
						rows={4}
						value={value}
						placeholder={field.placeholder}
						onInput={(e) => onChange(e.currentTarget.value)}
					/>
				</label>
			);
		case "select":
			return (
				<label class="field">
					{label}
					<select {...common} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
						{!(field.options ?? []).includes(value) && <option value="">{field.placeholder ?? "Choose…"}</option>}
						{(field.options ?? []).map((o) => (
							<option key={o} value={o}>
								{o}
							</option>
						))}
					</select>
				</label>
			);
		case "number":
			return (
				<label class="field">
					{label}
					<input
						type="number"
						{...common}
						min={field.min}
						max={field.max}
						step="any"
						value={value}
						placeholder={field.placeholder}
						onInput={(e) => onChange(e.currentTarget.value)}
					/>
				</label>
			);
		default:
			return (
				<label class="field">
					{label}
					<input
						type="text"
						{...common}
						value={value}
						placeholder={field.placeholder}
						onInput={(e) => onChange(e.currentTarget.value)}
					/>
				</label>
			);
	}
}

/** Seconds left, from `expiresAt` but never more than `timeoutMs`, so a client clock behind the server's cannot inflate it. */
function Countdown({ dialog }: { dialog: DialogRequest }) {
	const [now, setNow] = useState(() => Date.now());
	const [seen] = useState(() => Date.now());
	const active = dialog.expiresAt !== undefined;
	useEffect(() => {
		if (!active) return;
		const timer = setInterval(() => setNow(Date.now()), 500);
		return () => clearInterval(timer);
	}, [active]);
	if (dialog.expiresAt === undefined) return null;
	let left = dialog.expiresAt - now;
	if (dialog.timeoutMs !== undefined) left = Math.min(left, dialog.timeoutMs - (now - seen));
	const seconds = Math.max(0, Math.ceil(left / 1000));
	return (
		<span class={`countdown${seconds <= 10 ? " urgent" : ""}`} data-testid="dialog-countdown" aria-live="off">
			{seconds} s
		</span>
	);
}
