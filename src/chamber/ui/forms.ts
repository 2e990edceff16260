// Form dialogs: the fields an extension asks for, normalized, and a browser's answer validated against them.
import { FORM_FIELD_TYPES, type FormField, type FormFieldType, LIMITS } from "./descriptors.js";
import {
	isPlainObject,
	own,
	optString,
	nonEmpty,
	scalarText,
	finite,
	describe,
	cut,
	HAS_CONTROL_CHAR,
} from "./text.js";

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
