/**
 * A plugin's message renderers, entry renderers and markdown transformers (rpi's `RenderFn`s) as protocol
 * registrations: each runs when pier invokes it (`render_message`, `render_entry`, `transform_markdown`), so it has
 * the deadline, frame limit and crash isolation of every native call.
 *
 * rpi's shapes (its interactive TUI): a message renderer gets `{customType, content, details}`, an entry renderer
 * `{customType, data}`; both answer `{lines: [string]}` or `{text, markdown?}`; nonzero means "not drawn". A
 * markdown transformer gets `{markdown}` and answers `{markdown}`; rpi chains them in registration order over
 * assistant text. pier adds `expanded` to the renderers' input, and routes a custom type to the renderer whose
 * registered name it is (rpi offers every message to each renderer in turn).
 */
import type * as Kit from "../../../../kit/node/index.mjs";
import { callHandler } from "./handlers.js";
import type { NativeNamed, PluginRegistry } from "./registry.js";

type Span = { text: string; style?: string };

/** The surfaces rpi applies a plugin's transformers to: assistant text. */
export const NATIVE_MARKDOWN_TYPES = ["assistant"] as const;

function parse(text: string, what: string): Record<string, unknown> {
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		throw new Error(`${what} answered text that is not JSON: ${text.slice(0, 120)}`);
	}
	if (value === null || typeof value !== "object" || Array.isArray(value))
		throw new Error(`${what} answered ${text.slice(0, 120)}, not an object`);
	return value as Record<string, unknown>;
}

function spanOf(part: unknown): Span {
	if (typeof part === "string") return { text: part };
	if (part && typeof part === "object" && typeof (part as Span).text === "string") {
		const { text, style } = part as Span;
		return typeof style === "string" ? { text, style } : { text };
	}
	return { text: JSON.stringify(part) ?? "" };
}

/** rpi's renderer answer as protocol v1's RenderedMessage (`{lines: [[{text, style?}]]}`). */
export function renderedLines(answer: Record<string, unknown>, what: string): { lines: Span[][] } {
	if (Array.isArray(answer.lines)) {
		return { lines: answer.lines.map((line) => (Array.isArray(line) ? line.map(spanOf) : [spanOf(line)])) };
	}
	// `markdown: true` asks rpi's terminal for markdown styling; pier shows the text as it is.
	if (typeof answer.text === "string") return { lines: answer.text.split("\n").map((text) => [{ text }]) };
	throw new Error(`${what} answered neither "lines" nor "text"`);
}

function render(renderer: NativeNamed, input: Record<string, unknown>, what: string): { lines: Span[][] } {
	const { code, out } = callHandler(renderer, JSON.stringify(input), undefined);
	if (code !== 0) throw new Error(`${what} returned code ${code}${out ? `: ${out.slice(0, 200)}` : ""}`);
	return renderedLines(parse(out, what), what);
}

/** The plugin's transformers in registration order, each fed the previous one's markdown. */
export function transformChain(transformers: readonly NativeNamed[], markdown: string): string {
	let current = markdown;
	for (const transformer of transformers) {
		const what = `native markdown transformer "${transformer.name}"`;
		const { code, out } = callHandler(transformer, JSON.stringify({ markdown: current }), undefined);
		if (code !== 0) throw new Error(`${what} returned code ${code}${out ? `: ${out.slice(0, 200)}` : ""}`);
		const next = parse(out, what).markdown;
		if (typeof next !== "string") throw new Error(`${what} answered no "markdown" string`);
		current = next;
	}
	return current;
}

export function registerRenderers(
	pi: Kit.ExtensionAPI,
	registry: PluginRegistry,
	options: { id: string; capabilities: readonly string[]; seen: (ctx: Kit.ExtensionContext) => unknown },
): void {
	const all = [
		...registry.messageRenderers.map((r) => `message renderer "${r.name}"`),
		...registry.entryRenderers.map((r) => `entry renderer "${r.name}"`),
		...registry.markdownTransformers.map((r) => `markdown transformer "${r.name}"`),
	];
	if (all.length === 0) return;
	if (!options.capabilities.includes("message_renderers")) {
		throw new Error(
			`the plugin registers ${all.join(", ")}, but pi-extension.json of ${options.id} does not declare the "message_renderers" capability; add it to "capabilities"`,
		);
	}
	for (const renderer of registry.messageRenderers) {
		pi.registerMessageRenderer(renderer.name, (message, { expanded }, ctx) => {
			options.seen(ctx);
			const m = (message ?? {}) as { customType?: unknown; content?: unknown; details?: unknown };
			const input = {
				customType: m.customType ?? renderer.name,
				content: m.content ?? null,
				details: m.details ?? null,
			};
			return render(renderer, { ...input, expanded }, `native message renderer "${renderer.name}"`);
		});
	}
	for (const renderer of registry.entryRenderers) {
		pi.hostRenderers.registerEntryRenderer(renderer.name, (entry, { expanded }, ctx) => {
			options.seen(ctx);
			const e = (entry ?? {}) as { customType?: unknown; data?: unknown };
			const input = { customType: e.customType ?? renderer.name, data: e.data ?? null, expanded };
			return render(renderer, input, `native entry renderer "${renderer.name}"`);
		});
	}
	if (registry.markdownTransformers.length > 0) {
		pi.hostRenderers.registerMarkdownTransformer((markdown, _context, ctx) => {
			options.seen(ctx);
			return transformChain(registry.markdownTransformers, markdown);
		}, NATIVE_MARKDOWN_TYPES);
	}
}
