/**
 * Changes pier makes to the user's global `settings.json` (grants, install-script allowances): re-read under pi's
 * own settings lock (proper-lockfile's convention, a `settings.json.lock` directory, stale after 10 s), only the
 * caller's keys changed, every other key kept as it was, and the file replaced atomically (its mode kept).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { withDirLock } from "./dir-lock.js";
import { jsonSyntaxProblem } from "./json-syntax.js";

/** Writes `text` to `file` through a temporary file and a rename, keeping the file's mode (new files: 0600). */
export function atomicWrite(file: string, text: string, mode = 0o600): void {
	const keep = existsSync(file) ? statSync(file).mode & 0o777 : mode;
	const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
	writeFileSync(tmp, text, { mode: keep });
	renameSync(tmp, file);
}

/**
 * Runs `edit` on the settings as they are now, under pi's lock, and writes what it leaves. A problem (the file is
 * not a JSON object, the lock is held) is `fail(message)`, which names the file and what to do.
 */
export function editSettingsFile<T>(
	file: string,
	fail: (message: string) => Error,
	edit: (settings: Record<string, unknown>) => T,
): Promise<T> {
	mkdirSync(dirname(file), { recursive: true });
	const busy = () => fail(`${file} is locked by another writer (${file}.lock); try again, or remove ${file}.lock`);
	return withDirLock(`${file}.lock`, { waitMs: 5_000, retryMs: 20, staleMs: 10_000, busy }, () => {
		let settings: Record<string, unknown> = {};
		if (existsSync(file)) {
			const text = readFileSync(file, "utf8");
			let parsed: unknown;
			try {
				parsed = text.trim() === "" ? {} : JSON.parse(text);
			} catch (error) {
				throw fail(`${file}: not valid JSON (${jsonSyntaxProblem(text, error)}); fix it first`);
			}
			if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
				throw fail(`${file}: must hold a JSON object; fix it first`);
			settings = parsed as Record<string, unknown>;
		}
		const result = edit(settings);
		atomicWrite(file, `${JSON.stringify(settings, null, 2)}\n`);
		return result;
	});
}
