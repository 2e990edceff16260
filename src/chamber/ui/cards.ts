// `pichamber.ui` cards: a descriptor normalized to a component card with its actions, or a generic card that
// says what was wrong with it; and card removals.
import {
	type Badge,
	type CardAction,
	type CodeProps,
	type ProgressProps,
	type CardBody,
	type Component,
	COMPONENTS,
	type ComponentCard,
	type GenericCard,
	type KvRow,
	LIMITS,
	type ListItem,
	type NormalizedCard,
	type Tone,
} from "./descriptors.js";
import {
	isPlainObject,
	own,
	optString,
	nonEmpty,
	cellText,
	scalarText,
	tone,
	finite,
	describe,
	protocolMismatch,
	cut,
	boundedJson,
	type Rec,
	isCommandName,
	sanitizeArgs,
} from "./text.js";

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
