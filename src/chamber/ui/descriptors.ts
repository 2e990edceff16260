// Extension UI descriptors (PiChamber's `pichamber.ui` / `pichamber.app` protocol, version 1): their types and
// the limits the chamber enforces on them. Both the daemon and the browser app import this file, so it stays free
// of the pi SDK and of node: modules. The normalizers live beside it: text.ts (reading and cutting what an
// extension wrote), cards.ts, apps.ts and forms.ts. Every one of them accepts anything an extension may have
// written and never throws: an extension's mistake must degrade to a visible fallback, not take the transcript
// down.

// The form rules exist once, in the guest core: the chamber checks what the guests shape.
import { FORM_FIELD_TYPES as FORM_TYPES, FORM_LIMITS } from "../../../kit/core/form.mjs";

export const LIMITS = {
	keyChars: 128,
	idChars: 128,
	titleChars: 256,
	actions: 8,
	actionLabelChars: 128,
	actionIconChars: 64,
	actionConfirmChars: 500,
	actionArgsChars: 2000,
	badges: 24,
	tableRows: 200,
	tableColumns: 24,
	listItems: 200,
	kvRows: 200,
	messageChars: 50_000,
	panelsPerSession: 24,
	appsPerSession: 8,
	appHtmlChars: 200_000,
	formFields: FORM_LIMITS.fields,
	formOptions: FORM_LIMITS.options,
	statusChars: 1000,
	widgetLines: 100,
	widgetLineChars: 2000,
	/** Form labels, placeholders, option texts and promptForArgs texts (PiChamber cuts them at 256). */
	fieldTextChars: 256,
	/** A form field's initial value (PiChamber: 2,000). */
	formInitialChars: FORM_LIMITS.initialChars,
	/** One submitted form value (PiChamber drops longer ones: 8,000). */
	formValueChars: FORM_LIMITS.valueChars,
} as const;

export const UI_PROTOCOL = "pichamber-extension-ui";
export const UI_VERSION = 1;

/** A slash command name an action, trigger or app may invoke: no path separators, no leading dot or dash. */
export const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9:_-]{0,127}$/;
/** An app id: the command-name rule plus dots, since app ids are often dotted names. */
export const APP_ID = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$/;

export type Tone = "info" | "success" | "warning" | "error" | "neutral";
export type Component = "markdown" | "kv" | "list" | "table" | "progress" | "badges" | "code";

export const TONES: readonly Tone[] = ["info", "success", "warning", "error", "neutral"];
export const COMPONENTS: readonly Component[] = ["markdown", "kv", "list", "table", "progress", "badges", "code"];

export interface CardAction {
	label: string;
	command: string;
	args?: string;
	variant?: "primary" | "secondary" | "danger";
	icon?: string;
	disabled?: boolean;
	loading?: boolean;
	confirm?: string;
	promptForArgs?: { label?: string; placeholder?: string };
}

export interface KvRow {
	label: string;
	value: string;
	tone?: Tone;
}
export interface ListItem {
	label: string;
	value?: string;
	tone?: Tone;
}
export interface Badge {
	label: string;
	tone?: Tone;
}

export interface MarkdownProps {
	body: string;
}
export interface KvProps {
	rows: KvRow[];
}
export interface ListProps {
	items: ListItem[];
}
export interface TableProps {
	columns: string[];
	rows: string[][];
}
export interface ProgressProps {
	label?: string;
	value: number;
	max: number;
}
export interface BadgesProps {
	items: Badge[];
}
export interface CodeProps {
	code: string;
	language?: string;
}

export interface PropsByComponent {
	markdown: MarkdownProps;
	kv: KvProps;
	list: ListProps;
	table: TableProps;
	progress: ProgressProps;
	badges: BadgesProps;
	code: CodeProps;
}

/** A component name together with its props, discriminated on `component`. */
export type CardBody = { [C in Component]: { component: C; props: PropsByComponent[C] } }[Component];

export type ComponentCard = CardBody & {
	kind: "card";
	id?: string;
	title?: string;
	tone?: Tone;
	actions: CardAction[];
};

export interface GenericCard {
	kind: "generic";
	id?: string;
	title?: string;
	/** The raw descriptor as indented JSON, cut to `LIMITS.messageChars`. */
	json: string;
	/** Why it could not be rendered as a component, for the extension's author. */
	reason: string;
}

export type NormalizedCard = ComponentCard | GenericCard;

export interface AppSurface {
	appId: string;
	title?: string;
	html: string;
}

export type FormFieldType = "text" | "textarea" | "number" | "select" | "checkbox";
export const FORM_FIELD_TYPES: readonly FormFieldType[] = FORM_TYPES;

export interface FormField {
	id: string;
	label: string;
	type: FormFieldType;
	required?: boolean;
	placeholder?: string;
	options?: string[];
	initial?: string;
	min?: number;
	max?: number;
}
