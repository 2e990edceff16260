import { useMemo } from "preact/hooks";
import { renderMarkdown } from "../markdown.js";

/** Sanitized markdown (see markdown.ts); the only place the app sets innerHTML. */
export function Markdown({ text, class: cls }: { text: string; class?: string }) {
	const html = useMemo(() => renderMarkdown(text), [text]);
	// renderMarkdown escapes raw HTML and DOMPurify-sanitizes its output.
	return <div class={`md ${cls ?? ""}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
