/**
 * PiChamber's form (a pier addition to protocol v1): the field rules, written once. The guest core shapes an
 * author's fields with them before anything is sent; the host's checks (src/extensions/protocol/frames.ts, the
 * chamber's forms.ts) import the same constants, so the two sides cannot drift. Plain ES2020, no imports.
 */

/**
 * The field types a form may have, in PiChamber's order.
 * @type {readonly ["text", "textarea", "number", "select", "checkbox"]}
 */
export const FORM_FIELD_TYPES = Object.freeze(["text", "textarea", "number", "select", "checkbox"]);

/** PiChamber's bounds on a form (REFERENCES.md §10). */
export const FORM_LIMITS = Object.freeze({
	/** Fields in one form. */
	fields: 12,
	/** Options of one select field. */
	options: 20,
	/** Labels, placeholders and option texts (PiChamber cuts them at 256). */
	fieldTextChars: 256,
	/** A field's initial value. */
	initialChars: 2000,
	/** One submitted value (PiChamber drops longer ones). */
	valueChars: 8000,
});

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * The author's fields in the wire's shape (known keys only, scalar initial values as text), so a wrong JS type
 * fails this call instead of being a protocol violation. What the host alone can judge (empty or duplicate ids,
 * text lengths, a select without options) it refuses with its reason.
 */
export function formFields(fields) {
	if (!Array.isArray(fields)) throw new TypeError("ctx.ui.form: fields must be an array");
	if (fields.length > FORM_LIMITS.fields) {
		throw new Error(`ctx.ui.form: a form has at most ${FORM_LIMITS.fields} fields (got ${fields.length})`);
	}
	return fields.map((field, index) => {
		const where = `ctx.ui.form: field ${index + 1}`;
		if (!isObject(field)) throw new TypeError(`${where} must be an object`);
		const type = field.type ?? "text";
		if (typeof field.id !== "string") throw new TypeError(`${where} needs a string id`);
		if (typeof field.label !== "string") throw new TypeError(`${where} needs a string label`);
		if (!FORM_FIELD_TYPES.includes(type)) {
			throw new TypeError(
				`${where} has unknown type ${JSON.stringify(type)} (expected ${FORM_FIELD_TYPES.join(", ")})`,
			);
		}
		const out = { id: field.id, label: field.label, type };
		if (field.required === true) out.required = true;
		if (typeof field.placeholder === "string") out.placeholder = field.placeholder;
		if (field.options !== undefined) {
			if (!Array.isArray(field.options) || !field.options.every((o) => typeof o === "string")) {
				throw new TypeError(`${where}: options must be an array of strings`);
			}
			if (field.options.length > FORM_LIMITS.options) {
				throw new Error(`${where} has ${field.options.length} options; the limit is ${FORM_LIMITS.options}`);
			}
			out.options = field.options.slice();
		}
		const initial = field.initial;
		if (typeof initial === "string" || typeof initial === "number" || typeof initial === "boolean") {
			out.initial = String(initial);
		}
		for (const key of ["min", "max"]) {
			if (field[key] === undefined) continue;
			if (typeof field[key] !== "number" || !Number.isFinite(field[key])) {
				throw new TypeError(`${where}: ${key} must be a finite number`);
			}
			out[key] = field[key];
		}
		return out;
	});
}
