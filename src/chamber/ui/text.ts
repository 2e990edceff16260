// Reading what an extension wrote into a descriptor, as text: own plain properties, strings cut without
// splitting a surrogate pair, JSON that stops at its limit, control characters kept out of command arguments,
// status and widget lines cut to their limits.
import { COMMAND_NAME, LIMITS, type Tone, TONES, UI_PROTOCOL, UI_VERSION } from "./descriptors.js";

export type Rec = Record<string, unknown>;

// toString rather than a prototype check: objects built in another realm (a vm context, a QuickJS bridge) are
// plain too, while Date, Map or RegExp are not descriptors.
export function isPlainObject(value: unknown): value is Rec {
	if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
	return Object.prototype.toString.call(value) === "[object Object]";
}

// Own properties only: an inherited `component` (an object literal with `__proto__: {...}`) is not something the
// extension wrote into the entry, and `values.__proto__` must not read Object.prototype.
export function own(obj: Rec, key: string): unknown {
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
export const HAS_CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f]/;

export function optString(value: unknown, max: number): string | undefined {
	return typeof value === "string" ? cut(value, max) : undefined;
}

export function nonEmpty(value: unknown, max: number): string | undefined {
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
export function cellText(value: unknown): string {
	if (typeof value === "string") return cut(value, LIMITS.messageChars);
	if (value === null || value === undefined) return "";
	if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
	return boundedJson(value, LIMITS.messageChars);
}

export function scalarText(value: unknown): string | undefined {
	if (typeof value === "string") return cut(value, LIMITS.messageChars);
	if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
	return undefined;
}

export function tone(value: unknown): Tone | undefined {
	return typeof value === "string" && (TONES as readonly string[]).includes(value) ? (value as Tone) : undefined;
}

export function finite(value: unknown): number | undefined {
	return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export function describe(value: unknown): string {
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

/** The reason a descriptor's protocol marker rules it out, or undefined when it is ours (or absent). */
export function protocolMismatch(raw: Rec): string | undefined {
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
