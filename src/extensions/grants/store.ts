/**
 * Where grants live: the *global* `<agentDir>/settings.json`, key `extensionHost.grants`
 * (`{"<extension id>": ["run", …]}`). A project's settings never grant (settings.ts warns); the CLI
 * (`pier grant` / `pier revoke`) and the chamber edit this one file, and the bridge reads it at the
 * moment it checks an answer, so a change applies to running sessions too.
 *
 * Writes re-read the file under pi's own settings lock (proper-lockfile's convention: a `settings.json.lock`
 * directory, stale after 10 s), change only `extensionHost.grants`, keep every other key as it was, and
 * replace the file atomically. pi's SettingsManager merges its own changes into the file the same way, so
 * neither loses the other's keys.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { identifierProblem } from "../manifest.js";
import { GRANTS, type Grant, isGrant, sortedGrants } from "./vocabulary.js";

export type GrantTable = ReadonlyMap<string, ReadonlySet<Grant>>;

export interface GrantsRead {
	grants: GrantTable;
	/** Bad values, each naming the file and field; the bad part grants nothing. */
	problems: string[];
}

export const settingsFileOf = (agentDir: string): string => join(agentDir, "settings.json");

const field = (id?: string, index?: number) =>
	`extensionHost.grants${id === undefined ? "" : `[${JSON.stringify(id)}]`}${index === undefined ? "" : `[${index}]`}`;

/** `extensionHost.grants` of one parsed settings object; `file` names it in problems. */
export function parseGrants(settings: unknown, file: string): GrantsRead {
	const grants = new Map<string, Set<Grant>>();
	const problems: string[] = [];
	const host = (settings as { extensionHost?: unknown } | null | undefined)?.extensionHost;
	const value = host && typeof host === "object" ? (host as { grants?: unknown }).grants : undefined;
	if (value === undefined) return { grants, problems };
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		problems.push(`${file}: ${field()} must be an object of extension id → grant names (ignored)`);
		return { grants, problems };
	}
	for (const [id, list] of Object.entries(value)) {
		const idProblem = identifierProblem(id);
		if (idProblem) {
			problems.push(`${file}: ${field(id)}: extension id ${idProblem} (ignored)`);
			continue;
		}
		if (!Array.isArray(list)) {
			problems.push(`${file}: ${field(id)} must be an array of grant names such as ["run"] (ignored)`);
			continue;
		}
		const set = new Set<Grant>();
		list.forEach((name, index) => {
			if (isGrant(name)) set.add(name);
			else
				problems.push(
					`${file}: ${field(id, index)}: unknown grant ${JSON.stringify(name)} (known grants: ${GRANTS.join(", ")}; ignored)`,
				);
		});
		grants.set(id, set);
	}
	return { grants, problems };
}

/** The grants in force now. A settings file that is not JSON grants nothing, and says so. */
export function readGrants(agentDir: string): GrantsRead {
	const file = settingsFileOf(agentDir);
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return { grants: new Map(), problems: [] };
		return { grants: new Map(), problems: [`${file}: unreadable (${(error as Error).message}); nothing is granted`] };
	}
	let settings: unknown;
	try {
		settings = JSON.parse(text);
	} catch (error) {
		return {
			grants: new Map(),
			problems: [`${file}: not valid JSON (${(error as Error).message}); nothing is granted`],
		};
	}
	return parseGrants(settings, file);
}

export class GrantStoreError extends Error {
	override name = "GrantStoreError";
}

/** Replaces one extension's grants with `change(current)`; returns what it has afterwards. */
export async function changeGrants(
	agentDir: string,
	extensionId: string,
	change: (current: ReadonlySet<Grant>) => Iterable<Grant>,
): Promise<Grant[]> {
	const idProblem = identifierProblem(extensionId);
	if (idProblem) throw new GrantStoreError(`extension id ${idProblem}`);
	const file = settingsFileOf(agentDir);
	mkdirSync(dirname(file), { recursive: true });
	const release = await lock(file);
	try {
		let settings: Record<string, unknown> = {};
		if (existsSync(file)) {
			const text = readFileSync(file, "utf8");
			let parsed: unknown;
			try {
				parsed = text.trim() === "" ? {} : JSON.parse(text);
			} catch (error) {
				throw new GrantStoreError(`${file}: not valid JSON (${(error as Error).message}); fix it first`);
			}
			if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
				throw new GrantStoreError(`${file}: must hold a JSON object; fix it first`);
			settings = parsed as Record<string, unknown>;
		}
		const current = parseGrants(settings, file).grants.get(extensionId) ?? new Set<Grant>();
		const next = sortedGrants(change(current));
		const host = settings.extensionHost;
		if (host !== undefined && (host === null || typeof host !== "object" || Array.isArray(host)))
			throw new GrantStoreError(`${file}: extensionHost must be an object; fix it first`);
		const hostObject = { ...((host as Record<string, unknown> | undefined) ?? {}) };
		const table = hostObject.grants;
		const grants: Record<string, unknown> =
			table && typeof table === "object" && !Array.isArray(table) ? { ...(table as Record<string, unknown>) } : {};
		if (next.length > 0) grants[extensionId] = next;
		else delete grants[extensionId];
		if (Object.keys(grants).length > 0) hostObject.grants = grants;
		else delete hostObject.grants;
		if (Object.keys(hostObject).length > 0) settings.extensionHost = hostObject;
		else delete settings.extensionHost;
		atomicWrite(file, `${JSON.stringify(settings, null, 2)}\n`);
		return next;
	} finally {
		release();
	}
}

function atomicWrite(file: string, text: string): void {
	const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
	const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
	writeFileSync(tmp, text, { mode });
	renameSync(tmp, file);
}

const STALE_MS = 10_000;

/** pi's lock on settings.json: whoever creates `<file>.lock` holds it. */
async function lock(file: string): Promise<() => void> {
	const dir = `${file}.lock`;
	const deadline = Date.now() + 5_000;
	for (;;) {
		try {
			mkdirSync(dir);
			return () => {
				try {
					rmdirSync(dir);
				} catch {
					// already gone: a stale-lock sweep by another writer
				}
			};
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
		try {
			if (Date.now() - statSync(dir).mtimeMs > STALE_MS) {
				rmdirSync(dir);
				continue;
			}
		} catch {
			continue; // released meanwhile
		}
		if (Date.now() > deadline)
			throw new GrantStoreError(`${file} is locked by another writer (${dir}); try again, or remove ${dir}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
