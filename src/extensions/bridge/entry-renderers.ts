/**
 * `entry_renderer` registrations (a pier addition; native plugins' `register_entry_renderer`): a custom session
 * entry of a registered type is drawn by its extension through a `render_entry` invocation, answered as
 * `render_message` is. pi's terminal gets it through `pi.registerEntryRenderer`; the chamber can ask `renderEntry`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ContextSnapshot } from "../protocol/frames.js";
import { askedOncePer, RenderedMessageComponent, type RenderedLines, toRenderedLines } from "./message-renderers.js";
import type { StyleTheme } from "./terminal-style.js";

/** A custom entry as pi keeps it (CustomEntry, or a session file's `custom` line). */
export interface RenderableEntry {
	customType: string;
	data?: unknown;
	id?: string;
	timestamp?: string;
}

/** The extension's lines for a custom entry, or undefined when no extension renders its type. */
export async function renderEntry(
	host: ExtensionHost,
	entry: RenderableEntry,
	options: { expanded?: boolean; context?: ContextSnapshot; signal?: AbortSignal } = {},
): Promise<RenderedLines | undefined> {
	const owner = host.registry.entryRenderers.get(entry.customType)?.instance;
	if (!owner?.isLive) return undefined;
	const value = await owner.invoke(
		{
			kind: "render_entry",
			request: {
				entryType: entry.customType,
				entry: { customType: entry.customType, data: entry.data ?? null },
				expanded: options.expanded ?? false,
			},
		},
		{
			timeoutMs: host.timeouts.invocationMs,
			...(options.context ? { context: options.context } : {}),
			...(options.signal ? { signal: options.signal } : {}),
		},
	);
	try {
		return toRenderedLines(value);
	} catch (error) {
		throw new Error(
			`extension ${owner.id} rendered a "${entry.customType}" entry invalidly: ${(error as Error).message}`,
		);
	}
}

/** As registerMessageRenderers: the entry's data as JSON until the lines arrive, one invocation per entry and `expanded`. */
export function registerEntryRenderers(
	pi: ExtensionAPI,
	host: ExtensionHost,
	snapshot: () => ContextSnapshot | undefined,
	repaint?: () => void,
): void {
	const linesOf = askedOncePer<RenderedLines | undefined>();
	for (const entryType of host.registry.entryRenderers.keys()) {
		pi.registerEntryRenderer(entryType, (entry, { expanded }, theme) => {
			const pending = linesOf(entry, expanded, () => {
				const context = snapshot();
				return renderEntry(host, entry as RenderableEntry, { expanded, ...(context ? { context } : {}) });
			});
			const placeholder = `[${entryType}] ${JSON.stringify(entry.data ?? null) ?? ""}`;
			return new RenderedMessageComponent(pending, placeholder, theme as unknown as StyleTheme, repaint);
		});
	}
}
