/**
 * `markdown_transformer` registrations (a pier addition; native plugins' `register_markdown_transformer`): markdown of
 * a surface goes through each transforming extension in load order by `transform_markdown` invocations, the answer
 * cached per surface and text. A transformer that fails or times out leaves the text as it was, and its failure is
 * told once per extension.
 *
 * pi's terminal asks synchronously: the bridge registers one pi transformer that answers from the cache and asks
 * for what it lacks. pi draws a finished message right after the message's `message_start` (user) or `message_end`
 * (assistant) reaches extensions, so the bridge fetches those texts in those hooks (waiting up to PREFETCH_WAIT_MS),
 * and the drawing finds them; a resumed session's last HISTORY_MESSAGES messages are fetched in `session_start`, which
 * pi awaits before drawing them. A text drawn without that (older history, a slow transformer) shows as it is and is
 * fetched for its next drawing (pi-tui keeps a drawn markdown's lines until its text or width changes).
 */
import type { ExtensionAPI, ExtensionContext, MarkdownTransformer } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ExtensionInstance } from "../host/instance.js";
import type { ContextSnapshot } from "../protocol/frames.js";
import type { MarkdownMessageType } from "../protocol/registrations.js";
import { isRecord } from "../protocol/json-object.js";

export interface MarkdownContext {
	messageType: MarkdownMessageType;
	isStreaming?: boolean;
	availableWidth?: number;
	messageId?: string;
	timestamp?: string;
}

/** How long pi's terminal waits for a finished message's transforms before drawing it as it is. */
export const PREFETCH_WAIT_MS = 3_000;

/** How many of a resumed session's latest messages pi's terminal fetches before drawing them. */
export const HISTORY_MESSAGES = 50;

/** Answers kept per host; past this the oldest go. */
const CACHE_LIMIT = 2_000;

/** The pi transformers the bridge registered: the chamber runs the host's transforms itself in their place. */
const bridgeTransformers = new WeakSet<MarkdownTransformer>();
export const isBridgeTransformer = (fn: MarkdownTransformer): boolean => bridgeTransformers.has(fn);

/** One host's protocol markdown transformers as one async function. */
export class ProtocolMarkdownTransforms {
	private readonly answers = new Map<string, Promise<string>>();
	private readonly settled = new Map<string, string>();
	private readonly failed = new Set<string>();
	private readonly listeners = new Set<(message: string, extensionId: string) => void>();

	constructor(private readonly host: ExtensionHost) {}

	/** Surfaces any extension transforms. */
	get messageTypes(): Set<MarkdownMessageType> {
		return new Set(this.host.registry.markdownTransformers.flatMap((t) => [...t.messageTypes]));
	}

	/** Told of each extension's first failure. */
	onFailure(listener: (message: string, extensionId: string) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** The finished answer, when there is one. */
	peek(markdown: string, messageType: MarkdownMessageType): string | undefined {
		return this.settled.get(`${messageType}\u0000${markdown}`);
	}

	transform(markdown: string, context: MarkdownContext, snapshot?: ContextSnapshot): Promise<string> {
		if (!this.messageTypes.has(context.messageType)) return Promise.resolve(markdown);
		const key = `${context.messageType}\u0000${markdown}`;
		let answer = this.answers.get(key);
		if (!answer) {
			answer = this.chain(markdown, context, snapshot);
			if (this.answers.size >= CACHE_LIMIT) {
				const oldest = this.answers.keys().next().value as string;
				this.answers.delete(oldest);
				this.settled.delete(oldest);
			}
			this.answers.set(key, answer);
			void answer.then((text) => this.answers.has(key) && this.settled.set(key, text));
		}
		return answer;
	}

	private async chain(markdown: string, context: MarkdownContext, snapshot?: ContextSnapshot): Promise<string> {
		let current = markdown;
		for (const { instance, messageTypes } of this.host.registry.markdownTransformers) {
			if (!messageTypes.has(context.messageType) || !instance.isLive) continue;
			try {
				current = await this.one(instance, current, context, snapshot);
			} catch (error) {
				this.fail(instance, (error as Error).message);
			}
		}
		return current;
	}

	private async one(
		instance: ExtensionInstance,
		markdown: string,
		context: MarkdownContext,
		snapshot?: ContextSnapshot,
	): Promise<string> {
		const value = await instance.invoke(
			{ kind: "transform_markdown", request: { ...context, markdown } },
			{ timeoutMs: this.host.timeouts.invocationMs, ...(snapshot ? { context: snapshot } : {}) },
		);
		if (!isRecord(value) || typeof value.markdown !== "string" || Object.keys(value).length !== 1) {
			throw new Error('the answer must be {"markdown": "<text>"}');
		}
		return value.markdown;
	}

	private fail(instance: ExtensionInstance, why: string): void {
		if (this.failed.has(instance.id)) return;
		this.failed.add(instance.id);
		const message = `markdown transformer of extension ${instance.id} failed: ${why}; its text is shown untransformed`;
		for (const listener of this.listeners) listener(message, instance.id);
	}
}

const perHost = new WeakMap<ExtensionHost, ProtocolMarkdownTransforms>();

/** The host's transforms, one cache per host (the terminal's and the chamber's asks share it). */
export function markdownTransformsOf(host: ExtensionHost): ProtocolMarkdownTransforms {
	let transforms = perHost.get(host);
	if (!transforms) {
		transforms = new ProtocolMarkdownTransforms(host);
		perHost.set(host, transforms);
	}
	return transforms;
}

type Part = { type?: string; text?: unknown; thinking?: unknown };

/** The markdown pi draws for a message, by surface (its components' own choices: assistant text trimmed). */
function markdownOf(message: unknown): Array<[string, MarkdownMessageType]> {
	if (!isRecord(message)) return [];
	const parts: Part[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : [];
	if (Array.isArray(message.content)) parts.push(...(message.content as Part[]));
	const texts = parts.filter((p) => p?.type === "text" && typeof p.text === "string").map((p) => p.text as string);
	if (message.role === "user") return [[texts.join(""), "user"]];
	if (message.role !== "assistant") return [];
	const thinking = parts.filter((p) => p?.type === "thinking" && typeof p.thinking === "string");
	return [
		...texts.map((t): [string, MarkdownMessageType] => [t.trim(), "assistant"]),
		...thinking.map((p): [string, MarkdownMessageType] => [String(p.thinking).trim(), "assistant-thinking"]),
	];
}

export function registerMarkdownTransformers(
	pi: ExtensionAPI,
	host: ExtensionHost,
	snapshot: () => ContextSnapshot | undefined,
	live: () => ExtensionContext | undefined,
	repaint: () => void,
): void {
	if (host.registry.markdownTransformers.length === 0) return;
	const transforms = markdownTransformsOf(host);
	transforms.onFailure((message) => {
		try {
			// The chamber reports failures in its transcript (chamber/tui/markdown-transforms.ts).
			const ctx = live();
			if (ctx?.mode === "tui") ctx.ui.notify(message, "error");
		} catch {
			// a replaced session's context refuses use
		}
	});
	const transformer: MarkdownTransformer = (markdown, context) => {
		const done = transforms.peek(markdown, context.messageType);
		if (done !== undefined) return done;
		if (!context.isStreaming) {
			void transforms
				.transform(markdown, { ...context, isStreaming: false }, snapshot())
				.then((text) => text !== markdown && repaint());
		}
		return markdown;
	};
	bridgeTransformers.add(transformer);
	pi.registerMarkdownTransformer(transformer, { messageTypes: [...transforms.messageTypes] });
	// Only pi's terminal draws markdown as the message arrives; elsewhere the hooks cost nothing.
	const fetch = async (messages: unknown[], ctx: ExtensionContext) => {
		if (ctx.mode !== "tui") return;
		const context = snapshot();
		const all = Promise.all(
			messages.flatMap(markdownOf).map(([text, messageType]) => transforms.transform(text, { messageType }, context)),
		);
		// A slow transformer must not hold the run: past the wait pi draws the text as it is.
		let timer: NodeJS.Timeout | undefined;
		const waited = new Promise<void>((done) => {
			timer = setTimeout(done, PREFETCH_WAIT_MS);
		});
		await Promise.race([all, waited]).finally(() => clearTimeout(timer));
	};
	const roleOf = (message: unknown) => (isRecord(message) ? message.role : undefined);
	pi.on("message_start", (event, ctx) => (roleOf(event.message) === "user" ? fetch([event.message], ctx) : undefined));
	pi.on("message_end", (event, ctx) =>
		roleOf(event.message) === "assistant" ? fetch([event.message], ctx) : undefined,
	);
	// pi draws a resumed session's messages right after session_start reaches extensions: its latest ones first.
	pi.on("session_start", (_event, ctx) => {
		const messages = ctx.sessionManager
			.getBranch()
			.flatMap((entry) => (entry.type === "message" ? [entry.message] : []))
			.slice(-HISTORY_MESSAGES);
		return messages.length > 0 ? fetch(messages, ctx) : undefined;
	});
}
