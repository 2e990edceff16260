/**
 * Custom entries a protocol or native extension's `entry_renderer` draws (pi's `appendEntry` data): their row is
 * published as usual, then again with the renderer's lines as text (`rendered`) once the extension answers, as
 * rendered-rows.ts does for custom messages. The texts are kept per entry for the session's view.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { renderEntry } from "../../extensions/bridge/entry-renderers.js";
import { renderedText } from "../../extensions/bridge/message-renderers.js";
import type { ExtensionHost } from "../../extensions/host/host.js";
import type { TranscriptRow } from "../wire.js";

export class RenderedEntries {
	private readonly texts = new Map<string, string>();

	constructor(
		private readonly host: ExtensionHost,
		private readonly publish: (row: TranscriptRow) => void,
		private readonly report: (message: string, source: string) => void,
	) {}

	/** After `row` of `entry` was published: renders it when an extension renders its type. */
	observe(entry: SessionEntry, row: TranscriptRow): void {
		if (entry.type !== "custom" || row.kind !== "custom") return;
		const owner = this.host.registry.entryRenderers.get(entry.customType)?.instance;
		if (!owner) return;
		renderEntry(this.host, {
			customType: entry.customType,
			data: entry.data,
			id: entry.id,
			timestamp: entry.timestamp,
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
			const text = row.kind === "custom" ? this.texts.get(row.id) : undefined;
			return text === undefined ? row : { ...row, rendered: text };
		});
	}
}
