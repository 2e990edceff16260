/**
 * Where sessions go that leave the default list without being lost: archived ones (their ids in
 * `<stateDir>/archived.json`; the file is untouched, so pi sees it as before) and deleted ones, which wait in
 * `<stateDir>/trash/` for an undo window before they are gone for good.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "./auth/auth-file.js";
import { placeBack } from "./place-back.js";
import { storedSessionOf } from "./session-index.js";
import type { TrashedSession } from "./wire.js";

/** How long a deleted session waits in the trash (and can be restored), unless the chamber is given another window. */
export const UNDO_MS = 7 * 24 * 60 * 60_000;

interface TrashEntry {
	id: string;
	/** Where the file was, and goes back to on restore. */
	file: string;
	deletedAt: number;
}

export class SessionShelf {
	private readonly archivedFile: string;
	private readonly trashDir: string;
	private readonly trashIndex: string;
	/** Fires at the next expiry only: a deleted session's file is gone soon after its window, with no polling. */
	private timer: NodeJS.Timeout | undefined;

	constructor(
		stateDir: string,
		private readonly now: () => number = Date.now,
		private readonly undoMs = UNDO_MS,
	) {
		this.archivedFile = join(stateDir, "archived.json");
		this.trashDir = join(stateDir, "trash");
		this.trashIndex = join(this.trashDir, "index.json");
	}

	/** Deletes what expired while the daemon was down, and keeps deleting each file as its window ends. */
	start(): void {
		this.schedule(this.purge());
	}

	stop(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
	}

	private schedule(waiting: readonly TrashEntry[]): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		if (waiting.length === 0) return;
		const next = Math.min(...waiting.map((e) => e.deletedAt)) + this.undoMs;
		// setTimeout's longest delay is about 24.8 days; a longer wait is taken in steps.
		const delay = Math.min(Math.max(next - this.now(), 0) + 1, 2 ** 31 - 1);
		this.timer = setTimeout(() => {
			try {
				this.start();
			} catch {
				// The trash could not be read or cleared now (a full disk, permissions): the next delete or start retries.
			}
		}, delay).unref();
	}

	archived(): Set<string> {
		if (!existsSync(this.archivedFile)) return new Set();
		try {
			const ids = JSON.parse(readFileSync(this.archivedFile, "utf8")) as unknown;
			return new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []);
		} catch {
			return new Set();
		}
	}

	setArchived(id: string, archived: boolean): void {
		const ids = this.archived();
		if (archived) ids.add(id);
		else ids.delete(id);
		writeFileAtomic(this.archivedFile, `${JSON.stringify([...ids])}\n`);
	}

	private trash(): TrashEntry[] {
		if (!existsSync(this.trashIndex)) return [];
		try {
			return (JSON.parse(readFileSync(this.trashIndex, "utf8")) as TrashEntry[]).filter(
				(e) => typeof e?.id === "string" && typeof e.file === "string" && typeof e.deletedAt === "number",
			);
		} catch {
			return [];
		}
	}

	private saveTrash(entries: TrashEntry[]): void {
		writeFileAtomic(this.trashIndex, `${JSON.stringify(entries)}\n`);
	}

	private held(entry: TrashEntry): string {
		return join(this.trashDir, `${entry.deletedAt}-${basename(entry.file)}`);
	}

	/** What waits in the trash now, newest first, with where each file is held and when it goes for good. */
	list(): { id: string; held: string; deletedAt: number; purgeAt: number }[] {
		return this.purge()
			.map((e) => ({ id: e.id, held: this.held(e), deletedAt: e.deletedAt, purgeAt: e.deletedAt + this.undoMs }))
			.sort((a, b) => b.deletedAt - a.deletedAt);
	}

	/** Moves the file aside; the answer says until when it can come back. */
	discard(id: string, file: string): number {
		mkdirSync(this.trashDir, { recursive: true, mode: 0o700 });
		const entry: TrashEntry = { id, file, deletedAt: this.now() };
		renameSync(file, this.held(entry));
		const waiting = [...this.purge(), entry];
		this.saveTrash(waiting);
		this.setArchived(id, false);
		this.schedule(waiting);
		return entry.deletedAt + this.undoMs;
	}

	/**
	 * The session's file back where it was, or beside it under a new name when another file took its place in the
	 * meantime (neither is lost); undefined when its window has passed (or it was never here). Returns where it went.
	 */
	restore(id: string): string | undefined {
		const entries = this.purge();
		const entry = entries.find((e) => e.id === id);
		if (!entry) return undefined;
		mkdirSync(dirname(entry.file), { recursive: true });
		const file = placeBack(this.held(entry), entry.file, id);
		const waiting = entries.filter((e) => e !== entry);
		this.saveTrash(waiting);
		this.schedule(waiting);
		return file;
	}

	/** Deletes for good what waited longer than the window; returns what still waits. */
	purge(): TrashEntry[] {
		const cutoff = this.now() - this.undoMs;
		const entries = this.trash();
		const keep = entries.filter((e) => e.deletedAt > cutoff);
		for (const e of entries) if (e.deletedAt <= cutoff) rmSync(this.held(e), { force: true });
		if (keep.length !== entries.length) this.saveTrash(keep);
		// Files no index entry names (a crash between rename and index write) go too, once old enough.
		if (existsSync(this.trashDir)) {
			const named = new Set(keep.map((e) => basename(this.held(e))));
			for (const name of readdirSync(this.trashDir)) {
				const at = Number(name.split("-")[0]);
				if (name !== "index.json" && !named.has(name) && Number.isFinite(at) && at <= cutoff)
					rmSync(join(this.trashDir, name), { force: true });
			}
		}
		return keep;
	}
}

/** The Trash view's entries: each held file's name, first message and project, read from the file. */
export async function trashedSessions(
	entries: { id: string; held: string; deletedAt: number; purgeAt: number }[],
): Promise<TrashedSession[]> {
	const listed: TrashedSession[] = [];
	for (const entry of entries) {
		const stored = await readFile(entry.held)
			.then((bytes) => storedSessionOf(entry.held, bytes, { mtime: new Date(entry.deletedAt) }))
			.catch(() => undefined);
		listed.push({
			id: entry.id,
			...(stored?.name ? { name: stored.name } : {}),
			...(stored?.firstMessage ? { firstMessage: stored.firstMessage.slice(0, 200) } : {}),
			cwd: stored?.cwd ?? "",
			deletedAt: new Date(entry.deletedAt).toISOString(),
			purgeAt: new Date(entry.purgeAt).toISOString(),
		});
	}
	return listed;
}
