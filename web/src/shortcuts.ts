/**
 * Key combos as text ("Ctrl+Shift+K"): the same spelling as BUILTIN_SHORTCUTS in src/chamber/ui/shortcuts.ts, so a recorded
 * shortcut, a stored trigger and a built-in compare as plain strings.
 */
import { BUILTIN_SHORTCUTS } from "../../src/chamber/ui/shortcuts.js";

const MODIFIER_KEYS = new Set([
	"Control",
	"Alt",
	"Shift",
	"Meta",
	"AltGraph",
	"CapsLock",
	"Fn",
	"OS",
	"Hyper",
	"Super",
]);

type KeyLike = Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "altKey" | "shiftKey" | "metaKey">;

/** The combo for a key press, or undefined for a lone modifier. */
export function comboFromEvent(e: KeyLike): string | undefined {
	if (MODIFIER_KEYS.has(e.key) || e.key === "Dead" || e.key === "Unidentified") return undefined;
	// Letters and digits come from `code` so Shift+1 reads "Shift+1", not "Shift+!", and layouts agree.
	let key: string;
	if (/^Key[A-Z]$/.test(e.code)) key = e.code.slice(3);
	else if (/^Digit[0-9]$/.test(e.code)) key = e.code.slice(5);
	else if (e.key === " ") key = "Space";
	else if (e.key.length === 1) key = e.key.toUpperCase();
	else key = e.key;
	const parts: string[] = [];
	if (e.ctrlKey) parts.push("Ctrl");
	if (e.altKey) parts.push("Alt");
	if (e.shiftKey) parts.push("Shift");
	if (e.metaKey) parts.push("Meta");
	parts.push(key);
	return parts.join("+");
}

export function isBuiltinShortcut(combo: string): boolean {
	return BUILTIN_SHORTCUTS.includes(combo);
}

/** Without Ctrl, Alt or Meta a combo is ordinary typing, which a text field must keep. */
export function hasCommandModifier(combo: string): boolean {
	return /(^|\+)(Ctrl|Alt|Meta)\+/.test(combo);
}

export function isEditableTarget(target: EventTarget | null): boolean {
	if (!(target instanceof HTMLElement)) return false;
	if (target.isContentEditable) return true;
	const tag = target.tagName;
	return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && (target as HTMLInputElement).type !== "button");
}
