/**
 * What this branch adds to a live session's rows, as one: custom entries an extension's entry renderer draws
 * (entry-rows.ts) and markdown through pi's transformers (markdown-transforms.ts). Each republishes a row when its
 * answer arrives and keeps it for the session's view.
 */
import type { AgentSession, SessionEntry } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../../extensions/host/host.js";
import type { TranscriptRow } from "../wire.js";
import { RenderedEntries } from "./entry-rows.js";
import { MarkdownTransforms, TransformedRows } from "./markdown-transforms.js";

export class DrawnRows {
	private readonly entries: RenderedEntries;
	private readonly transformed: TransformedRows;

	constructor(options: {
		host: ExtensionHost;
		session: () => Pick<AgentSession, "resourceLoader">;
		publish: (row: TranscriptRow) => void;
		report: (message: string, source: string) => void;
	}) {
		this.entries = new RenderedEntries(options.host, options.publish, options.report);
		this.transformed = new TransformedRows(new MarkdownTransforms(options), options.publish);
	}

	observe(entry: SessionEntry, row: TranscriptRow): void {
		this.entries.observe(entry, row);
		this.transformed.observe(row);
	}

	apply(rows: TranscriptRow[]): TranscriptRow[] {
		return this.transformed.apply(this.entries.apply(rows));
	}
}
