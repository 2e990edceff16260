/**
 * Older pier kept the chamber's trust decisions in `<stateDir>/trust.json` as `{"projects": {"<dir>": bool}}`,
 * apart from the CLI. They move once into the shared store (a decision already in the store wins), and the old
 * file is renamed to `trust.json.migrated` so nothing reads or writes it again.
 */
import { existsSync, readFileSync, renameSync } from "node:fs";
import { canonicalDir, type TrustStore, type TrustValue } from "../extensions/trust-store.js";

export function migrateChamberTrust(file: string, store: TrustStore): number {
	if (!existsSync(file)) return 0;
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(file, "utf8"));
	} catch (error) {
		throw new Error(`${file}: not valid JSON (${(error as Error).message}); fix or remove it`);
	}
	const projects = (parsed as { projects?: unknown } | null)?.projects;
	// Not the old form (for example the state dir is the agent dir, whose trust.json is the store itself).
	if (projects === null || typeof projects !== "object" || Array.isArray(projects)) return 0;
	const decisions = Object.entries(projects as Record<string, unknown>).filter(
		(entry): entry is [string, boolean] => typeof entry[1] === "boolean",
	);
	// Renamed first: when the old file is the store's own path, the store then starts empty and takes them.
	renameSync(file, `${file}.migrated`);
	const existing = store.decisions();
	const changes: Array<[string, TrustValue]> = decisions.filter(([dir]) => !existing.has(canonicalDir(dir)));
	if (changes.length > 0) store.setMany(changes, "migrated from the chamber's old trust file");
	return changes.length;
}
