/**
 * Notices session files written outside the daemon (`pier run`, pi's terminal, another daemon): pi's session
 * directory is watched (fs.watch, recursive), and a burst of changes is reported once, by file path.
 */
import { existsSync, type FSWatcher, mkdirSync, watch } from "node:fs";
import { join } from "node:path";
import type { EventPayloads, SessionSummary } from "./wire.js";

/** A turn writes several lines in quick succession: one report per burst. */
const SETTLE_MS = 150;

export class SessionWatch {
	private watcher: FSWatcher | undefined;
	private timer: NodeJS.Timeout | undefined;
	private readonly changed = new Set<string>();

	constructor(
		private readonly root: string,
		private readonly onChange: (paths: string[]) => void,
	) {}

	start(): void {
		try {
			mkdirSync(this.root, { recursive: true });
			this.watcher = watch(this.root, { recursive: true }, (_event, name) => {
				const path = name?.toString();
				if (!path?.endsWith(".jsonl")) return;
				this.changed.add(join(this.root, path));
				this.timer ??= setTimeout(() => this.flush(), SETTLE_MS);
			});
			this.watcher.on("error", () => this.stop());
			// Watching alone never keeps the process up (a daemon that failed to listen exits).
			this.watcher.unref();
		} catch {
			// No watching here (a file system without it): the list is as fresh as its last request.
		}
	}

	private flush(): void {
		this.timer = undefined;
		const paths = [...this.changed];
		this.changed.clear();
		if (paths.length > 0) this.onChange(paths);
	}

	stop(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.watcher?.close();
		this.watcher = undefined;
	}
}

export interface OutsideDeps {
	/** The files of the daemon's running sessions: their changes are announced by the sessions themselves. */
	own: Set<string | undefined>;
	/** Session id → file, as last listed (updated by `listAll`). */
	files: Map<string, string>;
	listAll: () => Promise<SessionSummary[]>;
	archived: () => Set<string>;
	isLive: (id: string) => boolean;
	publish: (payload: EventPayloads["sessions.changed"]) => void;
}

/** Announces what changed in `paths` written by other processes: created, updated, or deleted sessions. */
export async function announceOutside(paths: string[], deps: OutsideDeps): Promise<void> {
	const theirs = new Set(paths.filter((p) => !deps.own.has(p)));
	if (theirs.size === 0) return;
	const before = new Map([...deps.files].map(([id, file]) => [file, id]));
	const all = await deps.listAll().catch(() => undefined);
	if (!all) return;
	const archived = deps.archived();
	const listed = new Set<string>();
	for (const summary of all) {
		const file = deps.files.get(summary.id);
		if (!file || !theirs.has(file) || summary.live) continue;
		listed.add(file);
		const session = archived.has(summary.id) ? { ...summary, archived: true } : summary;
		deps.publish({ reason: before.has(file) ? "updated" : "created", id: summary.id, session });
	}
	for (const file of theirs) {
		const id = before.get(file);
		if (id === undefined || listed.has(file) || existsSync(file) || deps.isLive(id)) continue;
		deps.files.delete(id);
		deps.publish({ reason: "deleted", id });
	}
}
