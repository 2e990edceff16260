/**
 * JSON nesting depth: one limit for every inbound frame and every entry the chamber shows.
 *
 * V8's JSON.parse is iterative, but JSON.stringify, TypeBox's Check and every projection of a value walk it
 * recursively: a value nested a few thousand levels overflows the stack wherever it is next serialized (a
 * session file, a view, an event stream). So depth is refused at the frame, measured on the text before it
 * is parsed (one O(n) pass, no recursion), and nothing deeper ever becomes a value.
 *
 * 128 is serde_json's recursion limit, which rpi inherits: rpi refuses a frame at 128 nested containers, so
 * every frame an rpi host accepts (at most 127) passes here too.
 */

/** The most nested arrays/objects a frame may contain, the frame object itself counting as one. */
export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether JSON text nests deeper than `max`. Brackets inside strings do not count. Text that is not JSON may
 * be measured wrongly, which is harmless: JSON.parse refuses it next.
 */
export function jsonTextTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
	// A depth past `max` needs more than `max` opening and as many closing characters.
	if (text.length <= 2 * max) return false;
	let depth = 0;
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c === QUOTE) {
			// Strings are most of a frame: indexOf skips to the closing quote at native speed.
			for (;;) {
				i = text.indexOf('"', i + 1);
				if (i === -1) return false;
				let backslashes = 0;
				while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
				if (backslashes % 2 === 0) break;
			}
		} else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
			if (++depth > max) return true;
		} else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
			depth--;
		}
	}
	return false;
}

/**
 * Whether a value nests deeper than `max` arrays/objects, itself counting as one. Iterative, so it is safe on
 * any value; a cycle counts as infinitely deep.
 */
export function valueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
	if (typeof value !== "object" || value === null) return false;
	const stack: Array<[object, number]> = [[value, 1]];
	while (stack.length > 0) {
		const [node, depth] = stack.pop()!;
		if (depth > max) return true;
		const children = Array.isArray(node) ? node : Object.values(node);
		for (const child of children) {
			if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
		}
	}
	return false;
}

export const depthMessage = (max: number = MAX_JSON_DEPTH) => `nesting deeper than ${max} levels`;
