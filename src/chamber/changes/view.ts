/**
 * The Changes view of a session from its recorded turns (store.ts): per turn, and for the whole session (each file
 * from before the first turn that changed it to after the last), with unified diffs and whether each file is
 * still what the agent left (a revert refuses otherwise).
 */
import { currentBranch, stagedPaths } from "./git.js";
import { projectPath, readCurrent } from "./project-path.js";
import type { FileRecord, TurnRecord } from "./store.js";
import type { ChangeTracker } from "./tracker.js";
import { isBinary, unifiedDiff } from "./unified-diff.js";
import type { ChangesView, FileChangeView, FileStatus } from "./wire.js";

/** A side larger than this is listed without its diff. */
export const DIFF_MAX_BYTES = 1024 * 1024;
/** A diff longer than this is cut (the page says so). */
export const DIFF_MAX_CHARS = 256 * 1024;
/** What the view reads of a file to compare it with the agent's content. */
const COMPARE_MAX_BYTES = 64 * 1024 * 1024;

/** One file's change across one or more turns: the first record's before, the last one's after. */
export interface Span {
	path: string;
	mode: TurnRecord["mode"];
	before: string | null;
	after: string | null;
	beforeMode?: string;
	afterMode?: string;
	/** The records it covers, oldest first (a revert marks them). */
	records: FileRecord[];
	turns: number[];
}

export function spanOfRecord(turn: TurnRecord, record: FileRecord): Span {
	return {
		path: record.path,
		mode: turn.mode,
		before: record.before,
		after: record.after,
		...(record.beforeMode ? { beforeMode: record.beforeMode } : {}),
		...(record.afterMode ? { afterMode: record.afterMode } : {}),
		records: [record],
		turns: [turn.turn],
	};
}

/**
 * The session's spans, by path: where several turns changed a file, from the first one's before to the last's
 * after, leaving out changes already reverted (so after reverting the newest turn's change, the session's Revert
 * goes on from what the turn before left). A file whose every change is reverted spans them all, as reverted.
 */
export function sessionSpans(turns: readonly TurnRecord[]): Span[] {
	const byPath = new Map<string, { turn: TurnRecord; record: FileRecord }[]>();
	for (const turn of turns) {
		for (const record of turn.files) {
			const list = byPath.get(record.path) ?? [];
			// A change of mode (a repository made mid-session) starts the file afresh: ids of two kinds never mix.
			if (list.length > 0 && list[0]!.turn.mode !== turn.mode) list.length = 0;
			list.push({ turn, record });
			byPath.set(record.path, list);
		}
	}
	const spans: Span[] = [];
	for (const all of byPath.values()) {
		const live = all.filter((x) => !x.record.reverted);
		const chosen = live.length > 0 ? live : all;
		const first = chosen[0]!;
		const last = chosen[chosen.length - 1]!;
		// Created and deleted again, or changed and changed back: no net change to show.
		if (live.length > 0 && first.record.before === last.record.after) continue;
		const span = spanOfRecord(first.turn, first.record);
		span.after = last.record.after;
		if (last.record.afterMode) span.afterMode = last.record.afterMode;
		else delete span.afterMode;
		span.records = chosen.map((x) => x.record);
		span.turns = chosen.map((x) => x.turn.turn);
		spans.push(span);
	}
	return spans.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function specialOf(span: Pick<Span, "beforeMode" | "afterMode">): "symlink" | "submodule" | undefined {
	const modes = [span.beforeMode, span.afterMode];
	if (modes.includes("120000")) return "symlink";
	if (modes.includes("160000")) return "submodule";
	return undefined;
}

function statusOf(span: Span): FileStatus {
	return span.before === null ? "added" : span.after === null ? "deleted" : "modified";
}

/** Whether the file in the project is still the span's `after` (compared by content, never following a link). */
export async function stillAgents(tracker: ChangeTracker, sessionId: string, span: Span): Promise<boolean> {
	let name: string;
	try {
		name = projectPath(tracker.root, span.path);
	} catch {
		return false;
	}
	const current = await readCurrent(name, COMPARE_MAX_BYTES);
	if (span.after === null) return current.kind === "absent";
	if (current.kind !== "file") return false;
	return current.bytes.equals(await tracker.content(sessionId, span.mode, span.after));
}

export async function fileView(tracker: ChangeTracker, sessionId: string, span: Span): Promise<FileChangeView> {
	const special = specialOf(span);
	const read = (id: string | null) => (id === null ? Promise.resolve(null) : tracker.content(sessionId, span.mode, id));
	const [before, after] = await Promise.all([read(span.before), read(span.after)]);
	const binary = (before !== null && isBinary(before)) || (after !== null && isBinary(after));
	const view: FileChangeView = { path: span.path, status: statusOf(span), binary, added: 0, removed: 0 };
	if (special) view.special = special;
	const reverted = span.records.every((r) => r.reverted) ? span.records[span.records.length - 1]?.reverted : undefined;
	if (reverted) view.reverted = reverted;
	else if (!special && !(await stillAgents(tracker, sessionId, span))) view.changedSince = true;
	if (binary) return view;
	if ((before?.length ?? 0) > DIFF_MAX_BYTES || (after?.length ?? 0) > DIFF_MAX_BYTES) {
		view.note = `larger than ${DIFF_MAX_BYTES} bytes: not shown`;
		return view;
	}
	let diff = unifiedDiff(span.path, before?.toString("utf8") ?? null, after?.toString("utf8") ?? null);
	// Past the two header lines, a line's first character is its kind.
	for (const line of diff.split("\n").slice(2)) {
		if (line.startsWith("+")) view.added++;
		else if (line.startsWith("-")) view.removed++;
	}
	if (diff.length > DIFF_MAX_CHARS) {
		diff = diff.slice(0, diff.lastIndexOf("\n", DIFF_MAX_CHARS) + 1);
		view.note = `the diff is cut at ${DIFF_MAX_CHARS} characters`;
	}
	view.diff = diff;
	return view;
}

export async function changesView(tracker: ChangeTracker, sessionId: string): Promise<ChangesView> {
	return tracker.serial(async () => {
		const turns = tracker.store(sessionId).turns();
		const mode = await tracker.mode();
		const view: ChangesView = {
			mode,
			files: await Promise.all(sessionSpans(turns).map((span) => fileView(tracker, sessionId, span))),
			turns: await Promise.all(
				[...turns].reverse().map(async (turn) => ({
					turn: turn.turn,
					prompt: turn.prompt,
					startedAt: turn.startedAt,
					endedAt: turn.endedAt,
					files: await Promise.all(turn.files.map((r) => fileView(tracker, sessionId, spanOfRecord(turn, r)))),
				})),
			),
			running: tracker.running,
		};
		if (mode === "git") {
			const branch = await currentBranch(tracker.root);
			view.git = { ...(branch ? { branch } : {}), staged: await stagedPaths(tracker.root).catch(() => []) };
		}
		return view;
	});
}
