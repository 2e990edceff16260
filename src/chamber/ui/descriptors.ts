// Extension UI descriptors (PiChamber's `pichamber.ui` / `pichamber.app` protocol, version 1) and the limits the
// chamber enforces on them. Both the daemon and the browser app import this file, so it stays free of the pi SDK
// and of node: modules. Every function here accepts anything an extension may have written and never throws:
// an extension's mistake must degrade to a visible fallback, not take the transcript down.

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
	formFields: 12,
	formOptions: 20,
	statusChars: 1000,
	widgetLines: 100,
	widgetLineChars: 2000,
	/** Form labels, placeholders, option texts and promptForArgs texts (PiChamber cuts them at 256). */
	fieldTextChars: 256,
	/** A form field's initial value (PiChamber: 2,000). */
	formInitialChars: 2000,
	/** One submitted form value (PiChamber drops longer ones: 8,000). */
	formValueChars: 8000,
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
export const FORM_FIELD_TYPES: readonly FormFieldType[] = ["text", "textarea", "number", "select", "checkbox"];

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

type Rec = Record<string, unknown>;

// toString rather than a prototype check: objects built in another realm (a vm context, a QuickJS bridge) are
// plain too, while Date, Map or RegExp are not descriptors.
function isPlainObject(value: unknown): value is Rec {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
	return Object.prototype.toString.call(value) === "[object Object]";
}

// Own properties only: an inherited `component` (an object literal with `__proto__: {...}`) is not something the
// extension wrote into the entry, and `values.__proto__` must not read Object.prototype.
function own(obj: Rec, key: string): unknown {
	return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

/** Cuts to at most `max` UTF-16 units without leaving half a surrogate pair at the end. */
export function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
	return text.slice(0, end);
}

// C0, DEL and C1: the characters that could start a new prompt line or drive a terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const HAS_CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;

function optString(value: unknown, max: number): string | undefined {
	return typeof value === "string" ? cut(value, max) : undefined;
}

function nonEmpty(value: unknown, max: number): string | undefined {
	const text = optString(value, max);
	return text ? text : undefined;
}

const JSON_DEPTH = 64;

/**
 * `JSON.stringify(value, null, unit)` that stops once `max` characters are written. In-process extensions hand us
 * live objects: shared sub-objects make plain stringify exponential and cycles or bigints make it throw, and only
 * the first `max` characters are ever shown. Cycles and over-deep nesting print as strings instead.
 */
export function boundedJson(value: unknown, max: number, unit = ""): string {
	const parts: string[] = [];
	let size = 0;
	const ancestors = new Set<object>();
	const emit = (text: string): void => {
		parts.push(text);
		size += text.length;
	};
	const write = (key: string, raw: unknown, indent: string): boolean => {
		let v = raw;
		if (v !== null && (typeof v === "object" || typeof v === "bigint")) {
			const toJSON = (v as { toJSON?: unknown }).toJSON;
			if (typeof toJSON === "function") v = toJSON.call(v, key);
		}
		switch (typeof v) {
			case "string":
				emit(JSON.stringify(cut(v, max)));
				return true;
			case "number":
				emit(Number.isFinite(v) ? String(v) : "null");
				return true;
			case "boolean":
				emit(String(v));
				return true;
			case "bigint":
				emit(JSON.stringify(v.toString()));
				return true;
			case "object":
				break;
			default:
				return false;
		}
		if (v === null) {
			emit("null");
			return true;
		}
		if (ancestors.has(v)) {
			emit('"[Circular]"');
			return true;
		}
		if (ancestors.size >= JSON_DEPTH) {
			emit('"[…]"');
			return true;
		}
		ancestors.add(v);
		const inner = unit ? `\n${indent}${unit}` : "";
		const isArray = Array.isArray(v);
		emit(isArray ? "[" : "{");
		let first = true;
		const keys = isArray ? undefined : Object.keys(v);
		const count = isArray ? (v as unknown[]).length : (keys?.length ?? 0);
		for (let i = 0; i < count && size < max; i++) {
			const k = keys ? (keys[i] as string) : String(i);
			const mark = parts.length;
			const markSize = size;
			emit(first ? inner : `,${inner}`);
			if (keys) emit(`${JSON.stringify(cut(k, max))}:${unit ? " " : ""}`);
			const child = (v as Record<string, unknown>)[k];
			if (!write(k, child, indent + unit)) {
				if (keys) {
					// Like JSON.stringify: an object drops undefined, function and symbol members.
					parts.length = mark;
					size = markSize;
					continue;
				}
				emit("null");
			}
			first = false;
		}
		if (!first && unit) emit(`\n${indent}`);
		emit(isArray ? "]" : "}");
		ancestors.delete(v);
		return true;
	};
	try {
		if (!write("", value, "")) return "undefined";
	} catch {
		// A throwing getter, toJSON or proxy trap: nothing trustworthy came out of this value.
		return "[unserializable]";
	}
	return cut(parts.join(""), max);
}

/** Text shown in a cell, row or badge: scalars keep their printed form, anything else its compact JSON. */
function cellText(value: unknown): string {
	if (typeof value === "string") return cut(value, LIMITS.messageChars);
	if (value === null || value === undefined) return "";
	if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
	return boundedJson(value, LIMITS.messageChars);
}

function scalarText(value: unknown): string | undefined {
	if (typeof value === "string") return cut(value, LIMITS.messageChars);
	if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
	return undefined;
}

function tone(value: unknown): Tone | undefined {
	return typeof value === "string" && (TONES as readonly string[]).includes(value) ? (value as Tone) : undefined;
}

function finite(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function describe(value: unknown): string {
	if (typeof value === "string") return JSON.stringify(cut(value, 64));
	if (typeof value === "number" || typeof value === "boolean") return String(value);
	if (value === null) return "null";
	return Array.isArray(value) ? "array" : typeof value;
}

export function isCommandName(name: unknown): name is string {
	return typeof name === "string" && COMMAND_NAME.test(name);
}

/**
 * Action arguments as they will follow `/<command> `: control characters (C0, DEL, C1) become spaces so that a
 * newline cannot start a second prompt line yet still separates words, then the result is trimmed and cut.
 */
export function sanitizeArgs(args: unknown): string | undefined {
	if (typeof args !== "string") return undefined;
	return cut(args.replace(CONTROL_CHARS, " ").trim(), LIMITS.actionArgsChars);
}

/** PiChamber accepts the descriptor either as the entry's data or under `data.ui`. */
export function unwrapDescriptor(data: unknown): unknown {
	try {
		if (isPlainObject(data)) {
			const ui = own(data, "ui");
			if (isPlainObject(ui)) return ui;
		}
	} catch {
		// A hostile getter: fall through and let the normalizer report it.
	}
	return data;
}

const ICON = /^[a-z0-9-]+$/;
const DEFAULT_CONFIRM = "Are you sure?";

// PiChamber's own variant names are mapped so extensions written for it keep their emphasis.
const VARIANTS: Record<string, CardAction["variant"]> = {
	primary: "primary",
	secondary: "secondary",
	danger: "danger",
	default: "primary",
	outline: "secondary",
	ghost: "secondary",
};

function normalizeAction(raw: unknown): CardAction | undefined {
	if (!isPlainObject(raw)) return undefined;
	const label = nonEmpty(own(raw, "label"), LIMITS.actionLabelChars);
	const command = own(raw, "command");
	if (!label || !isCommandName(command)) return undefined;
	const action: CardAction = { label, command };
	const args = sanitizeArgs(own(raw, "args"));
	if (args) action.args = args;
	const variant = own(raw, "variant");
	if (typeof variant === "string" && Object.hasOwn(VARIANTS, variant)) action.variant = VARIANTS[variant];
	const icon = own(raw, "icon");
	// A cut icon name would name a different (or no) sprite, so an over-long one is dropped, not truncated.
	if (typeof icon === "string" && icon.length <= LIMITS.actionIconChars && ICON.test(icon)) action.icon = icon;
	if (own(raw, "disabled") === true) action.disabled = true;
	if (own(raw, "loading") === true) action.loading = true;
	const confirm = own(raw, "confirm");
	if (confirm === true) action.confirm = DEFAULT_CONFIRM;
	else if (typeof confirm === "string" && confirm.length > 0) action.confirm = cut(confirm, LIMITS.actionConfirmChars);
	const prompt = own(raw, "promptForArgs");
	if (prompt === true) action.promptForArgs = {};
	else if (isPlainObject(prompt)) {
		const promptForArgs: { label?: string; placeholder?: string } = {};
		const promptLabel = optString(own(prompt, "label"), LIMITS.fieldTextChars);
		const placeholder = optString(own(prompt, "placeholder"), LIMITS.fieldTextChars);
		if (promptLabel !== undefined) promptForArgs.label = promptLabel;
		if (placeholder !== undefined) promptForArgs.placeholder = placeholder;
		action.promptForArgs = promptForArgs;
	}
	return action;
}

// Only the first `LIMITS.actions` entries count, valid or not, so a broken action never lets a later one
// move into view.
function normalizeActions(raw: unknown): CardAction[] {
	if (!Array.isArray(raw)) return [];
	const actions: CardAction[] = [];
	for (const entry of raw.slice(0, LIMITS.actions)) {
		const action = normalizeAction(entry);
		if (action) actions.push(action);
	}
	return actions;
}

type PropsResult = CardBody | { error: string };

function labelled(raw: unknown): { label: string; value?: string; tone?: Tone } | undefined {
	const direct = scalarText(raw);
	if (direct !== undefined) return direct ? { label: direct } : undefined;
	if (!isPlainObject(raw)) return undefined;
	const label = scalarText(own(raw, "label"));
	if (!label) return undefined;
	const item: { label: string; value?: string; tone?: Tone } = { label };
	const rawValue = own(raw, "value");
	if (rawValue !== undefined && rawValue !== null) item.value = cellText(rawValue);
	const itemTone = tone(own(raw, "tone"));
	if (itemTone) item.tone = itemTone;
	return item;
}

function normalizeProps(component: Component, props: Rec): PropsResult {
	switch (component) {
		case "markdown": {
			const body = own(props, "body") ?? own(props, "text");
			if (typeof body !== "string") return { error: "props.body must be a string" };
			return { component, props: { body: cut(body, LIMITS.messageChars) } };
		}
		case "code": {
			const code = own(props, "code");
			if (typeof code !== "string") return { error: "props.code must be a string" };
			const out: CodeProps = { code: cut(code, LIMITS.messageChars) };
			const language = nonEmpty(own(props, "language"), LIMITS.keyChars);
			if (language) out.language = language;
			return { component, props: out };
		}
		case "kv": {
			const rows = own(props, "rows");
			if (!Array.isArray(rows)) return { error: "props.rows must be an array" };
			const out: KvRow[] = [];
			for (const raw of rows.slice(0, LIMITS.kvRows)) {
				const item = labelled(raw);
				if (item) out.push({ ...item, value: item.value ?? "" });
			}
			return { component, props: { rows: out } };
		}
		case "list": {
			const items = own(props, "items") ?? own(props, "rows");
			if (!Array.isArray(items)) return { error: "props.items must be an array" };
			const out: ListItem[] = [];
			for (const raw of items.slice(0, LIMITS.listItems)) {
				const item = labelled(raw);
				if (item) out.push(item);
			}
			return { component, props: { items: out } };
		}
		case "badges": {
			const items = own(props, "items");
			if (!Array.isArray(items)) return { error: "props.items must be an array" };
			const out: Badge[] = [];
			for (const raw of items.slice(0, LIMITS.badges)) {
				const item = labelled(raw);
				if (item) out.push(item.tone ? { label: item.label, tone: item.tone } : { label: item.label });
			}
			return { component, props: { items: out } };
		}
		case "table": {
			const columns = own(props, "columns");
			const rows = own(props, "rows");
			if (!Array.isArray(columns) || columns.length === 0) return { error: "props.columns must be a non-empty array" };
			if (!Array.isArray(rows)) return { error: "props.rows must be an array" };
			const names = columns.slice(0, LIMITS.tableColumns).map(cellText);
			const out: string[][] = [];
			for (const raw of rows.slice(0, LIMITS.tableRows)) {
				if (Array.isArray(raw)) out.push(raw.slice(0, names.length).map(cellText));
			}
			return { component, props: { columns: names, rows: out } };
		}
		case "progress": {
			const value = finite(own(props, "value"));
			if (value === undefined) return { error: "props.value must be a finite number" };
			const rawMax = finite(own(props, "max"));
			const max = rawMax !== undefined && rawMax > 0 ? rawMax : 100;
			const out: ProgressProps = { value: Math.min(Math.max(value, 0), max), max };
			const label = optString(own(props, "label"), LIMITS.messageChars);
			if (label !== undefined) out.label = label;
			return { component, props: out };
		}
	}
}

function headerOf(raw: Rec): { id?: string; title?: string } {
	const header: { id?: string; title?: string } = {};
	const id = nonEmpty(own(raw, "id"), LIMITS.idChars);
	const title = optString(own(raw, "title"), LIMITS.titleChars);
	if (id) header.id = id;
	if (title !== undefined) header.title = title;
	return header;
}

function generic(raw: unknown, reason: string): GenericCard {
	let header: { id?: string; title?: string } = {};
	try {
		if (isPlainObject(raw)) header = headerOf(raw);
	} catch {
		header = {};
	}
	return { kind: "generic", ...header, json: boundedJson(raw, LIMITS.messageChars, "  "), reason };
}

/** The reason a descriptor's protocol marker rules it out, or undefined when it is ours (or absent). */
function protocolMismatch(raw: Rec): string | undefined {
	const protocol = own(raw, "protocol");
	if (protocol !== undefined && protocol !== null && protocol !== UI_PROTOCOL) {
		return `unknown protocol ${describe(protocol)}`;
	}
	const version = own(raw, "version");
	if (version !== undefined && version !== null && version !== UI_VERSION) {
		return `unknown protocol version ${describe(version)}`;
	}
	return undefined;
}

/**
 * A `pichamber.ui` descriptor (already unwrapped) as the chamber renders it. Anything that is an object but not a
 * renderable version-1 component becomes a generic card carrying its JSON and the reason. Undefined only when
 * `raw` is not a plain object. Check `cardRemoval` first: a removal has no component.
 */
export function normalizeCard(raw: unknown): NormalizedCard | undefined {
	try {
		if (!isPlainObject(raw)) return undefined;
		const mismatch = protocolMismatch(raw);
		if (mismatch) return generic(raw, mismatch);
		const header = headerOf(raw);
		const rawComponent = own(raw, "component") ?? own(raw, "type");
		const actions = normalizeActions(own(raw, "actions"));
		const cardTone = tone(own(raw, "tone"));
		const card = (body: CardBody): ComponentCard => ({
			kind: "card",
			...header,
			...body,
			...(cardTone ? { tone: cardTone } : {}),
			actions,
		});
		if (rawComponent === undefined || rawComponent === null) {
			// PiChamber renders a component-less descriptor that still has text or buttons as a markdown card.
			const text = own(raw, "body") ?? own(raw, "text");
			if (typeof text === "string")
				return card({ component: "markdown", props: { body: cut(text, LIMITS.messageChars) } });
			if (actions.length > 0) return card({ component: "markdown", props: { body: "" } });
			return generic(raw, "missing component");
		}
		if (typeof rawComponent !== "string" || !(COMPONENTS as readonly string[]).includes(rawComponent)) {
			return generic(raw, `unknown component ${describe(rawComponent)}`);
		}
		const component = rawComponent as Component;
		const rawProps = own(raw, "props");
		if (rawProps !== undefined && rawProps !== null && !isPlainObject(rawProps)) {
			return generic(raw, `invalid props for "${component}": props must be an object`);
		}
		const body = normalizeProps(component, rawProps ?? {});
		if ("error" in body) return generic(raw, `invalid props for "${component}": ${body.error}`);
		return card(body);
	} catch {
		return generic(raw, "unreadable descriptor");
	}
}

/** `{id, removed: true}` unregisters the live panel with that id. */
export function cardRemoval(raw: unknown): { id: string } | undefined {
	try {
		if (!isPlainObject(raw) || own(raw, "removed") !== true) return undefined;
		const id = nonEmpty(own(raw, "id"), LIMITS.idChars);
		return id ? { id } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * A `pichamber.app` descriptor (already unwrapped). HTML over the limit is an error rather than cut, because cut
 * HTML is broken HTML; an empty `html` unregisters the app as PiChamber does.
 */
export function normalizeApp(raw: unknown): { app: AppSurface } | { removed: string } | { error: string } {
	try {
		if (!isPlainObject(raw)) return { error: "an app descriptor must be an object" };
		const mismatch = protocolMismatch(raw);
		if (mismatch) return { error: mismatch };
		const appIdRaw = own(raw, "appId");
		const appId = typeof appIdRaw === "string" && appIdRaw.length > 0 ? appIdRaw : own(raw, "id");
		if (typeof appId !== "string" || appId.length === 0) return { error: "an app needs an appId" };
		if (!APP_ID.test(appId)) {
			return {
				error: `invalid appId ${describe(appId)}: up to ${LIMITS.idChars} letters, digits, ".", ":", "_" or "-", starting with a letter or digit`,
			};
		}
		const html = own(raw, "html");
		if (own(raw, "removed") === true || html === "") return { removed: appId };
		if (typeof html !== "string") return { error: `app "${appId}" needs an html string` };
		if (html.length > LIMITS.appHtmlChars) {
			return {
				error: `app "${appId}" html is ${html.length} characters; the limit is ${LIMITS.appHtmlChars}`,
			};
		}
		const app: AppSurface = { appId, html };
		const title = optString(own(raw, "title"), LIMITS.titleChars);
		if (title !== undefined) app.title = title;
		return { app };
	} catch {
		return { error: "unreadable app descriptor" };
	}
}

function formField(raw: unknown, index: number): FormField | string {
	const where = `field ${index + 1}`;
	if (!isPlainObject(raw)) return `${where} must be an object`;
	const id = own(raw, "id");
	if (typeof id !== "string" || id.length === 0) return `${where} needs an id`;
	// Ids come back as the answer's keys, so cutting one would hand the extension a key it never asked for.
	if (id.length > LIMITS.idChars) return `${where}: id is longer than ${LIMITS.idChars} characters`;
	if (HAS_CONTROL_CHAR.test(id)) return `${where}: id contains control characters`;
	const named = `field "${id}"`;
	const label = nonEmpty(own(raw, "label"), LIMITS.fieldTextChars);
	if (!label) return `${named} needs a label`;
	const rawType = own(raw, "type") ?? "text";
	if (typeof rawType !== "string" || !(FORM_FIELD_TYPES as readonly string[]).includes(rawType)) {
		return `${named} has unknown type ${describe(rawType)} (expected ${FORM_FIELD_TYPES.join(", ")})`;
	}
	const type = rawType as FormFieldType;
	const field: FormField = { id, label, type };
	if (own(raw, "required") === true) field.required = true;
	const placeholder = optString(own(raw, "placeholder"), LIMITS.fieldTextChars);
	if (placeholder !== undefined) field.placeholder = placeholder;
	if (type === "select") {
		const options = own(raw, "options");
		if (!Array.isArray(options) || options.length === 0) return `${named} is a select and needs options`;
		if (options.length > LIMITS.formOptions) {
			return `${named} has ${options.length} options; the limit is ${LIMITS.formOptions}`;
		}
		if (!options.every((option) => typeof option === "string")) return `${named}: every option must be a string`;
		field.options = options.map((option: string) => cut(option, LIMITS.fieldTextChars));
	}
	if (type === "number") {
		const min = own(raw, "min");
		const max = own(raw, "max");
		if (min !== undefined && finite(min) === undefined) return `${named}: min must be a finite number`;
		if (max !== undefined && finite(max) === undefined) return `${named}: max must be a finite number`;
		if (typeof min === "number") field.min = min;
		if (typeof max === "number") field.max = max;
		if (field.min !== undefined && field.max !== undefined && field.min > field.max) {
			return `${named}: min is greater than max`;
		}
	}
	const rawInitial = scalarText(own(raw, "initial"));
	const initial = rawInitial === undefined ? undefined : cut(rawInitial, LIMITS.formInitialChars);
	// An initial value the answer check would reject is dropped, so submitting an untouched form cannot fail.
	if (initial !== undefined && fieldValueError(field, initial) === undefined) field.initial = initial;
	return field;
}

/**
 * A form's fields, or an error naming what is wrong. Over-limit forms are refused rather than cut, so the
 * extension learns its form does not fit instead of receiving answers to half of it.
 */
export function normalizeFormFields(raw: unknown): { fields: FormField[] } | { error: string } {
	try {
		if (!Array.isArray(raw)) return { error: "form fields must be an array" };
		if (raw.length > LIMITS.formFields) {
			return { error: `a form has at most ${LIMITS.formFields} fields (got ${raw.length})` };
		}
		const fields: FormField[] = [];
		const ids = new Set<string>();
		for (const [index, entry] of raw.entries()) {
			const field = formField(entry, index);
			if (typeof field === "string") return { error: field };
			if (ids.has(field.id)) return { error: `duplicate field id "${field.id}"` };
			ids.add(field.id);
			fields.push(field);
		}
		return { fields };
	} catch {
		return { error: "unreadable form fields" };
	}
}

const DECIMAL = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** Why a non-empty answer does not fit its field, or undefined when it does. */
function fieldValueError(field: FormField, value: string): string | undefined {
	const named = `field "${field.id}"`;
	if (value.length > LIMITS.formValueChars) return `${named} is longer than ${LIMITS.formValueChars} characters`;
	switch (field.type) {
		case "number": {
			const number = Number(value);
			if (!DECIMAL.test(value) || !Number.isFinite(number)) return `${named} must be a number`;
			if (field.min !== undefined && number < field.min) return `${named} must be at least ${field.min}`;
			if (field.max !== undefined && number > field.max) return `${named} must be at most ${field.max}`;
			return undefined;
		}
		case "select":
			return field.options?.includes(value) ? undefined : `${named} must be one of its options`;
		case "checkbox":
			return value === "true" || value === "false" ? undefined : `${named} must be "true" or "false"`;
		default:
			return undefined;
	}
}

/**
 * Checks a browser's answer against the fields that were sent. Empty strings count as unanswered: allowed for
 * optional fields, an error for required ones.
 */
export function validateFormAnswer(
	fields: FormField[],
	values: unknown,
): { ok: true; values: Record<string, string> } | { ok: false; error: string } {
	try {
		if (!Array.isArray(fields)) return { ok: false, error: "no form is pending" };
		if (!isPlainObject(values)) return { ok: false, error: "values must be an object" };
		const known = new Set(fields.map((field) => field.id));
		for (const key of Object.keys(values)) {
			if (!known.has(key)) return { ok: false, error: `unknown field "${cut(key, LIMITS.idChars)}"` };
		}
		const out: [string, string][] = [];
		for (const field of fields) {
			const value = own(values, field.id);
			if (value === undefined || value === "") {
				if (field.required) return { ok: false, error: `field "${field.id}" is required` };
				if (value === "") out.push([field.id, value]);
				continue;
			}
			if (typeof value !== "string") return { ok: false, error: `field "${field.id}" must be a string` };
			const error = fieldValueError(field, value);
			if (error) return { ok: false, error };
			out.push([field.id, value]);
		}
		// fromEntries defines own properties, so a field named "__proto__" is an ordinary key.
		return { ok: true, values: Object.fromEntries(out) };
	} catch {
		return { ok: false, error: "unreadable form answer" };
	}
}

function lineText(value: unknown): string {
	if (typeof value === "string") return value;
	try {
		return String(value);
	} catch {
		return "";
	}
}

/** A status text cut to its limit; anything that is not a string is an empty (cleared) status. */
export function capStatus(text: string): string {
	return typeof text === "string" ? cut(text, LIMITS.statusChars) : "";
}

/** Widget lines: at most `LIMITS.widgetLines`, each cut; anything that is not an array is no lines. */
export function capWidgetLines(lines: unknown): string[] {
	if (!Array.isArray(lines)) return [];
	try {
		return lines.slice(0, LIMITS.widgetLines).map((line) => cut(lineText(line), LIMITS.widgetLineChars));
	} catch {
		return [];
	}
}
