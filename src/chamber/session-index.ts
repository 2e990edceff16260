/**
 * The chamber's session list without reading every session file on every request: pi's `listAll` parses each
 * file in full (1,000 files of 100 KB took ~750 ms a listing). Listings are kept per project directory and
 * reused while that directory's files have the same names, sizes and modification times; a directory
 * where anything changed (a live session appending, a file added or removed) is listed again by pi.
 */
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type SessionInfo, SessionManager } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agent/paths.js";

async function signature(dir: string): Promise<string> {
	const names = (await readdir(dir)).filter((name) => name.endsWith(".jsonl")).sort();
	const parts = await Promise.all(
		names.map(async (name) => {
			try {
				const s = await stat(join(dir, name));
				return `${name}:${s.size}:${s.mtimeMs}`;
			} catch {
				return `${name}:gone`;
			}
		}),
	);
	return parts.join("\n");
}

export class SessionIndex {
	private readonly byDir = new Map<string, { signature: string; sessions: SessionInfo[] }>();

	/** Every session of every project, newest first, as pi's `SessionManager.listAll` answers. */
	async listAll(): Promise<SessionInfo[]> {
		const root = join(agentDir(), "sessions");
		if (!existsSync(root)) return [];
		const seen = new Set<string>();
		const all: SessionInfo[] = [];
		for (const entry of await readdir(root, { withFileTypes: true })) {
			if (!entry.isDirectory()) continue;
			const dir = join(root, entry.name);
			seen.add(dir);
			let sig: string;
			try {
				sig = await signature(dir);
			} catch {
				continue;
			}
			const cached = this.byDir.get(dir);
			if (cached?.signature === sig) {
				all.push(...cached.sessions);
				continue;
			}
			const sessions = await SessionManager.list(dir, dir);
			// Listed after the signature was taken: a write in between only makes the next listing read again.
			this.byDir.set(dir, { signature: sig, sessions });
			all.push(...sessions);
		}
		for (const dir of this.byDir.keys()) if (!seen.has(dir)) this.byDir.delete(dir);
		return all.sort((a, b) => b.modified.getTime() - a.modified.getTime());
	}
}
