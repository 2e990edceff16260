/**
 * Custom messages an extension's `message_renderer` draws: their transcript row is published as usual, then again
 * with the renderer's lines as text (`rendered`) once the extension answers. The texts are kept for the session's
 * view, so a client that loads the transcript later sees them too. A session file read without its session
 * running shows the plain row: rendering needs the extension.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { renderedText, renderMessage } from "../extensions/bridge/message-renderers.js";
import type { ExtensionHost } from "../extensions/host/host.js";
import type { TranscriptRow } from "./wire.js";

type CustomRow = Extract<TranscriptRow, { kind: "custom" }>;

export class RenderedRows {
	private readonly texts = new Map<string, string>();

	constructor(
		private readonly host: ExtensionHost,
		private readonly publish: (row: TranscriptRow) => void,
		private readonly report: (message: string, source: string) => void,
	) {}

	/** After `row` of `entry` was published: renders it when an extension renders its type. */
	observe(entry: SessionEntry, row: TranscriptRow): void {
		if (entry.type !== "custom_message" || row.kind !== "custom") return;
		const owner = this.host.registry.messageRenderers.get(entry.customType)?.instance;
		if (!owner) return;
		renderMessage(this.host, {
			customType: entry.customType,
			content: entry.content,
			display: entry.display,
			...(entry.details !== undefined ? { details: entry.details } : {}),
		}).then(
			(lines) => {
				if (!lines) return;
				const text = renderedText(lines);
				this.texts.set(row.id, text);
				this.publish({ ...row, rendered: text });
			},
			(error: unknown) => this.report((error as Error).message, `extension ${owner.id}`),
		);
	}

	/** The view's rows, with what was rendered so far. */
	apply(rows: TranscriptRow[]): TranscriptRow[] {
		if (this.texts.size === 0) return rows;
		return rows.map((row) => {
			if (row.kind !== "custom") return row;
			const text = this.texts.get(row.id);
			return text === undefined ? row : ({ ...row, rendered: text } satisfies CustomRow);
		});
	}
}
