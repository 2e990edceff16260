import { useMemo } from "preact/hooks";
import { lazyModule } from "../lazy-module.js";

/** marked and DOMPurify load with the first message shown, not with the sign-in page or the session list. */
export const markdownModule = lazyModule(() => import("../markdown.js"));

/**
 * Rendered HTML by source text. A row's text does not change once persisted, so a row scrolled out of the
 * virtualized transcript and back (or re-rendered by an unrelated update) is not parsed again.
 */
const cache = new Map<string, string>();
const CACHE_ENTRIES = 2000;

function rendered(render: (text: string) => string, text: string): string {
	const hit = cache.get(text);
	if (hit !== undefined) return hit;
	const html = render(text);
	if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
	cache.set(text, html);
	return html;
}

/** Sanitized markdown (see markdown.ts); the only place the app sets innerHTML. */
export function Markdown({ text, class: cls, cached = true }: { text: string; class?: string; cached?: boolean }) {
	const md = markdownModule.use();
	const html = useMemo(
		() => (md ? (cached ? rendered(md.renderMarkdown, text) : md.renderMarkdown(text)) : undefined),
		[md, text, cached],
	);
	// Until the renderer has arrived the text shows as it is, so the newest message is readable at once.
	if (html === undefined) return <div class={`md md-plain ${cls ?? ""}`}>{text}</div>;
	// renderMarkdown escapes raw HTML and DOMPurify-sanitizes its output.
	return <div class={`md ${cls ?? ""}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
