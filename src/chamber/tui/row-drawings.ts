/**
 * One live session's drawn rows: which rows an extension draws (their marker on the wire), their drawings at a
 * width bucket and expanded state (cached: the token theme makes a drawing independent of the page's palette, so
 * one serves light and dark), and what a renderer that fails or is too slow costs: its own row only.
 *
 * An in-process renderer runs on the daemon's thread and cannot be interrupted; each drawing is timed, and one over
 * the budget marks that row's renderer as too slow: the row shows its raw data from then on and the renderer is not
 * called for it again. A protocol extension's renderer is bounded by its invocation timeout and answers later: the
 * row is `pending` until then, and a `transcript.drawn` event tells the page to ask again.
 */
import type { AgentSession, MarkdownTransformer, SessionEntry } from "@earendil-works/pi-coding-agent";
import type { RenderedLines } from "../../extensions/bridge/message-renderers.js";
import type { ExtensionHost } from "../../extensions/host/host.js";
import { installTokenTheme } from "../../pi-seams/tui-render.js";
import type { RowDrawing, TranscriptRow } from "../wire.js";
import { drawComponent } from "./draw.js";
import { toolDrawingKey } from "./drawing-wire.js";
import {
	type Caught,
	type DrawTarget,
	drawTarget,
	entryIsDrawn,
	type TargetContext,
	toolOwner,
} from "./draw-targets.js";

/** A drawing that takes longer than this marks its row's renderer as too slow. */
export const DRAW_BUDGET_MS = 1_000;
/** Drawings kept per session (oldest dropped first). */
const MAX_CACHED = 2_000;

export interface DrawingDeps {
	session(): AgentSession;
	host: ExtensionHost;
	/** Tells the page these rows' drawings changed. */
	changed(ids: string[]): void;
	/** Markdown transformers to draw messages with (default none). */
	transformers?(): MarkdownTransformer[];
	budgetMs?: number;
}

type ProtocolAnswer = { lines: RenderedLines | undefined } | { error: string };

const label = (path: string) => path.split(/[\\/]/).filter(Boolean).slice(-2).join("/");
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export class RowDrawings {
	private readonly cache = new Map<string, RowDrawing>();
	/** Rows whose renderer was too slow: their drawing for good. */
	private readonly slow = new Map<string, RowDrawing>();
	/** A protocol renderer's answer per row and expanded state, or the call still out. */
	private readonly protocol = new Map<string, ProtocolAnswer | Promise<void>>();

	constructor(private readonly deps: DrawingDeps) {}

	private context(): TargetContext {
		return { session: this.deps.session(), host: this.deps.host, transformers: this.deps.transformers?.() ?? [] };
	}

	/** The row with its drawn markers (for the rows an extension draws). */
	mark(row: TranscriptRow): TranscriptRow {
		const cx = this.context();
		if (row.kind === "custom") {
			const entry = cx.session.sessionManager.getEntry(row.id);
			return entry && entryIsDrawn(entry, cx) ? { ...row, drawn: true } : row;
		}
		if (row.kind === "assistant" && row.toolCalls.some((c) => toolOwner(cx.session, c.name)))
			return {
				...row,
				toolCalls: row.toolCalls.map((c) => (toolOwner(cx.session, c.name) ? { ...c, drawn: true } : c)),
			};
		if (row.kind === "tool_result" && toolOwner(cx.session, row.toolName)) return { ...row, drawn: true };
		return row;
	}

	markAll(rows: TranscriptRow[]): TranscriptRow[] {
		return rows.map((row) => this.mark(row));
	}

	/** A written entry may complete a drawing: a tool's result belongs to its call's. */
	entryWritten(entry: SessionEntry): void {
		if (entry.type !== "message") return;
		const message = entry.message as unknown as Record<string, unknown>;
		if (message.role !== "toolResult") return;
		if (!toolOwner(this.deps.session(), String(message.toolName))) return;
		const key = toolDrawingKey(String(message.toolCallId));
		this.forget(key);
		this.deps.changed([key]);
	}

	/** Drops a row's cached drawings. */
	private forget(id: string): void {
		for (const key of [...this.cache.keys()]) if (key.startsWith(`${id}\n`)) this.cache.delete(key);
	}

	/** The rows' drawings at `width` columns (a bucket), expanded or not. */
	async draw(ids: readonly string[], width: number, expanded: boolean): Promise<Record<string, RowDrawing>> {
		await installTokenTheme();
		const out: Record<string, RowDrawing> = {};
		for (const id of ids) out[id] = await this.drawOne(id, width, expanded);
		return out;
	}

	private async drawOne(id: string, width: number, expanded: boolean): Promise<RowDrawing> {
		const slow = this.slow.get(id);
		if (slow) return slow;
		const key = `${id}\n${width}\n${expanded ? 1 : 0}`;
		const cached = this.cache.get(key);
		if (cached) return cached;
		const target = drawTarget(id, this.context());
		if (!target) return { error: "no extension draws this row (it may have been unloaded)" };
		const drawing =
			target.kind === "protocol"
				? await this.drawProtocol(id, target, width, expanded)
				: await this.drawInProcess(id, target, width, expanded);
		if ("pending" in drawing || this.slow.has(id)) return drawing;
		this.cache.set(key, drawing);
		if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
		return drawing;
	}

	private async drawInProcess(
		id: string,
		target: Extract<DrawTarget, { kind: "component" }>,
		width: number,
		expanded: boolean,
	): Promise<RowDrawing> {
		const caught: Caught = {};
		const extension = label(target.owner);
		const started = performance.now();
		let lines: RowDrawing | undefined;
		try {
			const component = await target.build(caught);
			if (component) {
				component.setExpanded(expanded);
				lines = { lines: await drawComponent(component, width) };
			} else lines = { lines: [] };
		} catch (error) {
			caught.error ??= error;
		}
		const took = performance.now() - started;
		const budget = this.deps.budgetMs ?? DRAW_BUDGET_MS;
		if (took > budget) {
			const drawing = {
				error: `its renderer took ${(took / 1000).toFixed(1)} s to draw this row (the budget is ${budget / 1000} s); it is not asked again for this row`,
				extension,
			};
			this.slow.set(id, drawing);
			return drawing;
		}
		if (caught.error !== undefined) return { error: `its renderer failed: ${messageOf(caught.error)}`, extension };
		return lines ?? { lines: [] };
	}

	private async drawProtocol(
		id: string,
		target: Extract<DrawTarget, { kind: "protocol" }>,
		width: number,
		expanded: boolean,
	): Promise<RowDrawing> {
		const key = `${id}\n${expanded ? 1 : 0}`;
		const answer = this.protocol.get(key);
		const extension = target.owner;
		if (answer === undefined) {
			const asked = target.ask(expanded).then(
				(lines) => this.protocol.set(key, { lines }),
				(error: unknown) => this.protocol.set(key, { error: messageOf(error) }),
			);
			this.protocol.set(
				key,
				asked.then(() => this.deps.changed([id])),
			);
			return { pending: true };
		}
		if (answer instanceof Promise) return { pending: true };
		if ("error" in answer) return { error: `its renderer failed: ${answer.error}`, extension };
		try {
			const component = await target.build(answer.lines);
			component.setExpanded(expanded);
			return { lines: await drawComponent(component, width) };
		} catch (error) {
			return { error: `drawing its lines failed: ${messageOf(error)}`, extension };
		}
	}
}
