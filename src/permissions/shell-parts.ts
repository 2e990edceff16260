/**
 * The simple commands a bash command line runs, each to be checked on its own: the parts between `&&`, `||`,
 * `;`, `|`, `&` and newlines, subshell parentheses and `{ …; }` groups, and the commands inside `$(…)`,
 * backticks and `<(…)`/`>(…)`, which run too (also inside double quotes). Single quotes and backslashes keep
 * what they quote literal. This is a reading of the text, not a shell: what a command does with its arguments
 * (`sh -c "…"`, `eval`, `xargs`) is not followed, which docs/security.md states.
 */

/** Whitespace collapsed to single spaces and trimmed, as rules are matched. */
export function normalizeCommand(text: string): string {
	return text.replace(/\s+/g, " ").trim();
}

/** Leading `NAME=value` assignments do not change which program runs: `FOO=1 rm x` is checked as `rm x`. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]*)\s+/;

function stripAssignments(part: string): string {
	let rest = part;
	for (let m = ASSIGNMENT.exec(rest); m && m[0].length < rest.length; m = ASSIGNMENT.exec(rest))
		rest = rest.slice(m[0].length);
	return rest;
}

/** Index just past the `)` that closes the `(` before `start`, skipping quoted text; the end when unclosed. */
function closingParen(text: string, start: number): number {
	let depth = 1;
	let i = start;
	while (i < text.length) {
		const c = text[i]!;
		if (c === "\\") i += 2;
		else if (c === "'") i = skipSingle(text, i + 1);
		else if (c === '"') i = skipDouble(text, i + 1).end;
		else {
			if (c === "(") depth++;
			else if (c === ")" && --depth === 0) return i + 1;
			i++;
		}
	}
	return text.length;
}

function skipSingle(text: string, start: number): number {
	const end = text.indexOf("'", start);
	return end === -1 ? text.length : end + 1;
}

/** Past the closing `"`, with the command substitutions found inside (they run). */
function skipDouble(text: string, start: number): { end: number; inner: string[] } {
	const inner: string[] = [];
	let i = start;
	while (i < text.length) {
		const c = text[i]!;
		if (c === "\\") i += 2;
		else if (c === '"') return { end: i + 1, inner };
		else if (c === "$" && text[i + 1] === "(") {
			const end = closingParen(text, i + 2);
			inner.push(text.slice(i + 2, end - 1));
			i = end;
		} else if (c === "`") {
			const end = closingBacktick(text, i + 1);
			inner.push(text.slice(i + 1, end - 1));
			i = end;
		} else i++;
	}
	return { end: text.length, inner };
}

function closingBacktick(text: string, start: number): number {
	let i = start;
	while (i < text.length) {
		if (text[i] === "\\") i += 2;
		else if (text[i] === "`") return i + 1;
		else i++;
	}
	return text.length;
}

/** The simple commands of `command`, outermost first, each normalized; empty parts dropped. */
export function commandParts(command: string, depth = 0): string[] {
	const parts: string[] = [];
	const nested: string[] = [];
	let current = "";
	const cut = () => {
		let part = normalizeCommand(current);
		// A `{ …; }` group: the braces are words of their own around the commands.
		if (part.startsWith("{ ")) part = part.slice(2);
		if (part === "}" || part === "{") part = "";
		if (part.endsWith(" }")) part = part.slice(0, -2);
		part = stripAssignments(part);
		if (part !== "") parts.push(part);
		current = "";
	};
	let i = 0;
	while (i < command.length) {
		const c = command[i]!;
		const next = command[i + 1];
		if (c === "\\") {
			current += command.slice(i, i + 2);
			i += 2;
		} else if (c === "'") {
			const end = skipSingle(command, i + 1);
			current += command.slice(i, end);
			i = end;
		} else if (c === '"') {
			const { end, inner } = skipDouble(command, i + 1);
			nested.push(...inner);
			current += command.slice(i, end);
			i = end;
		} else if ((c === "$" || c === "<" || c === ">") && next === "(") {
			const end = closingParen(command, i + 2);
			nested.push(command.slice(i + 2, end - 1));
			current += command.slice(i, end);
			i = end;
		} else if (c === "`") {
			const end = closingBacktick(command, i + 1);
			nested.push(command.slice(i + 1, end - 1));
			current += command.slice(i, end);
			i = end;
		} else if (c === "#" && (i === 0 || /\s/.test(command[i - 1]!))) {
			// A comment runs to the end of the line and runs nothing.
			const end = command.indexOf("\n", i);
			i = end === -1 ? command.length : end;
		} else if (c === "(" || c === ")") {
			cut();
			i++;
		} else if ((c === "&" || c === "|") && next === c) {
			cut();
			i += 2;
		} else if (c === "&" && (next === ">" || command[i - 1] === ">" || command[i - 1] === "<")) {
			// `&>file`, `2>&1`: a redirection, not a separator.
			current += c;
			i++;
		} else if (c === ";" || c === "|" || c === "&" || c === "\n") {
			cut();
			i++;
		} else {
			current += c;
			i++;
		}
	}
	cut();
	// A pathological nesting depth is cut off as one part: it is still checked, as text.
	if (depth < 16) for (const inner of nested) parts.push(...commandParts(inner, depth + 1));
	return parts;
}
