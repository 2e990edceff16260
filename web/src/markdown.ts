/**
 * Markdown to safe HTML. Transcript text comes from models and extensions, so raw HTML in it must stay inert:
 * the renderer escapes every HTML token (an `<img onerror>` shows as text), links keep only http(s)/mailto
 * targets, images become links (no request leaves the page just because a message was displayed), and
 * DOMPurify with a short allow-list is a second layer should the renderer ever let something through.
 */
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";

export function escapeHtml(text: string): string {
	return text.replace(
		/[&<>"']/g,
		(c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
	);
}

export function safeHref(href: string | null | undefined): string | undefined {
	if (!href) return undefined;
	try {
		const url = new URL(href, "https://invalid.example/");
		if (url.origin === "https://invalid.example") return undefined; // relative: would point into the chamber
		return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:" ? url.href : undefined;
	} catch {
		return undefined;
	}
}

const marked = new Marked({
	gfm: true,
	breaks: true,
	async: false,
	renderer: {
		html({ text }: Tokens.HTML | Tokens.Tag) {
			return escapeHtml(text);
		},
		link({ href, title, tokens }: Tokens.Link) {
			const inner = this.parser.parseInline(tokens);
			const safe = safeHref(href);
			if (!safe) return inner;
			const t = title ? ` title="${escapeHtml(title)}"` : "";
			return `<a href="${escapeHtml(safe)}"${t} target="_blank" rel="noopener noreferrer">${inner}</a>`;
		},
		image({ href, text }: Tokens.Image) {
			const safe = safeHref(href);
			const label = escapeHtml(text || href);
			return safe ? `<a href="${escapeHtml(safe)}" target="_blank" rel="noopener noreferrer">🖼 ${label}</a>` : label;
		},
	},
});

const ALLOWED_TAGS = [
	"a",
	"p",
	"br",
	"hr",
	"strong",
	"em",
	"del",
	"s",
	"code",
	"pre",
	"blockquote",
	"ul",
	"ol",
	"li",
	"h1",
	"h2",
	"h3",
	"h4",
	"h5",
	"h6",
	"table",
	"thead",
	"tbody",
	"tr",
	"th",
	"td",
	"input",
];

let hooked = false;
function installHooks(): void {
	if (hooked) return;
	hooked = true;
	DOMPurify.addHook("afterSanitizeAttributes", (node) => {
		if (node.tagName === "A") {
			const safe = safeHref(node.getAttribute("href"));
			if (safe) node.setAttribute("href", safe);
			else node.removeAttribute("href");
			node.setAttribute("target", "_blank");
			node.setAttribute("rel", "noopener noreferrer");
		}
		// GFM task lists are the only inputs marked emits; anything else is dropped.
		if (node.tagName === "INPUT") {
			if (node.getAttribute("type") !== "checkbox") node.remove();
			else node.setAttribute("disabled", "");
		}
	});
}

export function renderMarkdown(source: string): string {
	installHooks();
	const html = marked.parse(source) as string;
	return DOMPurify.sanitize(html, {
		ALLOWED_TAGS,
		ALLOWED_ATTR: ["href", "title", "target", "rel", "class", "start", "align", "type", "checked", "disabled"],
		ALLOW_DATA_ATTR: false,
		ALLOW_UNKNOWN_PROTOCOLS: false,
	});
}
