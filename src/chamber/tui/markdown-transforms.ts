/**
 * pi's markdown transformers applied to the text the chamber's page renders as markdown: user and assistant text,
 * thinking, and compaction and branch summaries. Every source: in-process pi extensions (`registerMarkdownTransformer`,
 * synchronous, from the session's loaded extensions in load order) and protocol and native extensions (their
 * `transform_markdown` invocations, asynchronous, at the place pi's runner has the bridge's transformer).
 *
 * A row is published as usual, then again with the transformed text once it is ready; the texts are kept per entry
 * for the session's view. Only finished messages are transformed: a streaming answer's deltas go out as they are,
 * and the final row replaces them. A transformer that throws or times out leaves the text as it was and is reported
 * once, naming its extension.
 */
import type { AgentSession, Extension, MarkdownTransformContext } from "@earendil-works/pi-coding-agent";
import { isBridgeTransformer, markdownTransformsOf } from "../../extensions/bridge/markdown-transformers.js";
import type { ExtensionHost } from "../../extensions/host/host.js";
import type { MarkdownMessageType } from "../../extensions/protocol/registrations.js";
import type { TranscriptRow } from "../wire.js";

/** The page has no one terminal width; transformers that lay text out to a width get this one. */
export const CHAMBER_MARKDOWN_WIDTH = 100;

export interface TransformSources {
	/** The session now running (replacements change it). */
	session: () => Pick<AgentSession, "resourceLoader">;
	host: ExtensionHost;
	report: (message: string, source: string) => void;
}

const extensionName = (ext: Extension) => ext.sourceInfo?.path || ext.path;

/** Markdown through every transformer of `messageType`; the text unchanged when there are none. */
export class MarkdownTransforms {
	private readonly failed = new Set<string>();

	constructor(private readonly sources: TransformSources) {
		markdownTransformsOf(sources.host).onFailure((message, id) => sources.report(message, `extension ${id}`));
	}

	private transformers(): Extension[] {
		return this.sources
			.session()
			.resourceLoader.getExtensions()
			.extensions.filter((ext) => ext.markdownTransformer);
	}

	/** Whether any loaded extension transforms markdown (rows are left alone otherwise). */
	get active(): boolean {
		return this.transformers().length > 0;
	}

	async transform(
		markdown: string,
		messageType: MarkdownMessageType,
		ids: { messageId?: string; timestamp?: string } = {},
	): Promise<string> {
		const context: MarkdownTransformContext = {
			messageType,
			isStreaming: false,
			availableWidth: CHAMBER_MARKDOWN_WIDTH,
			...ids,
		};
		let current = markdown;
		for (const ext of this.transformers()) {
			const { transformer, messageTypes } = ext.markdownTransformer!;
			if (isBridgeTransformer(transformer)) {
				current = await markdownTransformsOf(this.sources.host).transform(current, context);
				continue;
			}
			if (!messageTypes.has(messageType)) continue;
			try {
				const out = transformer(current, context);
				if (typeof out === "string") current = out;
			} catch (error) {
				this.fail(extensionName(ext), (error as Error)?.message ?? String(error));
			}
		}
		return current;
	}

	private fail(name: string, why: string): void {
		if (this.failed.has(name)) return;
		this.failed.add(name);
		this.sources.report(
			`markdown transformer of extension ${name} failed: ${why}; its text is shown untransformed`,
			`extension ${name}`,
		);
	}
}

/** A resumed session's rows transformed when its view is first read (the older ones stay as written). */
export const HISTORY_ROWS = 300;

type Patch = Partial<Record<"text" | "thinking" | "summary", string>>;

/** What of a row is markdown, by field and surface. */
function markdownFields(row: TranscriptRow): Array<[keyof Patch, string, MarkdownMessageType]> {
	switch (row.kind) {
		case "user":
			return [["text", row.text, "user"]];
		case "assistant":
			return [
				["text", row.text, "assistant"],
				...(row.thinking
					? [["thinking", row.thinking, "assistant-thinking"] as [keyof Patch, string, MarkdownMessageType]]
					: []),
			];
		case "compaction":
		case "branch_summary":
			return [["summary", row.summary, "summary"]];
		default:
			return [];
	}
}

/** Transformed rows, kept per entry id and published when they change. */
export class TransformedRows {
	private readonly patches = new Map<string, Patch>();
	private readonly asked = new Set<string>();

	constructor(
		private readonly transforms: MarkdownTransforms,
		private readonly publish: (row: TranscriptRow) => void,
	) {}

	/** After `row` was published: transforms its markdown, publishing the row again if anything changed. */
	observe(row: TranscriptRow): void {
		const fields = markdownFields(row);
		if (fields.length === 0 || this.asked.has(row.id) || !this.transforms.active) return;
		this.asked.add(row.id);
		const ids = {
			messageId: row.id,
			...("timestamp" in row ? { timestamp: new Date(row.timestamp).toISOString() } : {}),
		};
		void Promise.all(
			fields.map(
				async ([field, text, type]) => [field, text, await this.transforms.transform(text, type, ids)] as const,
			),
		).then((results) => {
			const patch: Patch = {};
			for (const [field, before, after] of results) if (after !== before) patch[field] = after;
			if (Object.keys(patch).length === 0) return;
			this.patches.set(row.id, patch);
			this.publish({ ...row, ...patch } as TranscriptRow);
		});
	}

	/**
	 * The view's rows with what was transformed so far; of the rows not seen yet (a resumed session's), the last
	 * HISTORY_ROWS are asked now.
	 */
	apply(rows: TranscriptRow[]): TranscriptRow[] {
		const recent = rows.length - HISTORY_ROWS;
		return rows.map((row, index) => {
			const patch = this.patches.get(row.id);
			if (!patch && index >= recent) this.observe(row);
			return patch ? ({ ...row, ...patch } as TranscriptRow) : row;
		});
	}
}
