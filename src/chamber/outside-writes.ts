/**
 * pi's own CLI cannot see pier's session leases (session-lease.ts), so a user may append to a live chamber
 * session's file with `pi --session <file>`. Writing on from the chamber's in-memory tree would leave two
 * interleaved branches; instead the session notices entries it does not know and reloads from the file first.
 */
import { readFileSync, statSync } from "node:fs";

export class OutsideWrites {
	private seen: { size: number; mtimeMs: number } | undefined;

	/** True when `file` holds entries that `known` lacks. Reads the file only when its size or mtime moved. */
	changed(file: string, known: ReadonlySet<string>): boolean {
		let stat: { size: number; mtimeMs: number };
		try {
			stat = statSync(file);
		} catch {
			return false;
		}
		if (this.seen && this.seen.size === stat.size && this.seen.mtimeMs === stat.mtimeMs) return false;
		this.seen = { size: stat.size, mtimeMs: stat.mtimeMs };
		for (const line of readFileSync(file, "utf8").split("\n")) {
			if (!line.trim()) continue;
			let entry: { type?: unknown; id?: unknown };
			try {
				entry = JSON.parse(line) as typeof entry;
			} catch {
				continue;
			}
			if (entry.type !== "session" && typeof entry.id === "string" && !known.has(entry.id)) return true;
		}
		return false;
	}

	/** After a reload the file is what the session knows. */
	forget(): void {
		this.seen = undefined;
	}
}
