/**
 * Syntax colour for code the page shows whole (a file preview, a diff's lines): highlight.js's core with the
 * languages a project usually holds, in its own chunk fetched on first use. The output is highlight.js's HTML,
 * which escapes the source text and adds only `<span class="hljs-…">`, so it is safe to set as inner HTML.
 */
/// <reference types="highlight.js" />
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
	bash,
	c,
	cpp,
	css,
	diff,
	go,
	java,
	javascript,
	json,
	markdown,
	python,
	rust,
	typescript,
	xml,
	yaml,
};
// highlight.js 10's own types disagree between a language module's export and registerLanguage's parameter.
type LanguageFn = Parameters<typeof hljs.registerLanguage>[1];
for (const [name, language] of Object.entries(LANGUAGES))
	hljs.registerLanguage(name, language as unknown as LanguageFn);

const BY_EXTENSION: Record<string, keyof typeof LANGUAGES> = {
	sh: "bash",
	bash: "bash",
	zsh: "bash",
	c: "c",
	h: "c",
	cc: "cpp",
	cpp: "cpp",
	hpp: "cpp",
	css: "css",
	diff: "diff",
	patch: "diff",
	go: "go",
	java: "java",
	js: "javascript",
	mjs: "javascript",
	cjs: "javascript",
	jsx: "javascript",
	json: "json",
	jsonl: "json",
	md: "markdown",
	py: "python",
	rs: "rust",
	ts: "typescript",
	mts: "typescript",
	cts: "typescript",
	tsx: "typescript",
	html: "xml",
	htm: "xml",
	svg: "xml",
	xml: "xml",
	yml: "yaml",
	yaml: "yaml",
};

/** The language a path's extension names, or undefined for one the page does not colour. */
export function languageOf(path: string): string | undefined {
	const name = path.slice(path.lastIndexOf("/") + 1);
	const dot = name.lastIndexOf(".");
	return dot > 0 ? BY_EXTENSION[name.slice(dot + 1).toLowerCase()] : undefined;
}

/**
 * One line of source as HTML. Each line alone, so a diff can colour its lines without the hunks between them;
 * a construct that spans lines (a block comment) is coloured on its first line only.
 */
export function highlightLine(text: string, language: string | undefined): string {
	if (!language) return escapeText(text);
	return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}

/** A whole file as HTML lines, so multi-line constructs keep their colour across lines. */
export function highlightLines(text: string, language: string | undefined): string[] {
	if (!language) return text.split("\n").map(escapeText);
	return splitHtmlLines(hljs.highlight(text, { language, ignoreIllegals: true }).value);
}

function escapeText(text: string): string {
	return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Splits highlight.js's HTML at newlines, closing the spans open at each break and reopening them on the next line. */
function splitHtmlLines(html: string): string[] {
	const lines: string[] = [];
	const open: string[] = [];
	let line = "";
	for (const part of html.split(/(<span [^>]*>|<\/span>|\n)/)) {
		if (part === "\n") {
			lines.push(line + "</span>".repeat(open.length));
			line = open.join("");
		} else if (part.startsWith("<span ")) {
			open.push(part);
			line += part;
		} else if (part === "</span>") {
			open.pop();
			line += part;
		} else line += part;
	}
	lines.push(line);
	return lines;
}
