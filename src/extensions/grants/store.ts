/**
 * Where grants live: the *global* `<agentDir>/settings.json`, key `extensionHost.grants`
 * (`{"<extension id>": {"dir": "<canonical manifest dir>", "digest": "sha256:…", "grants": ["run", …]}}`).
 * An entry grants only to the extension with that id loaded from that directory with that code
 * (identity.ts); the old id-only form (`{"<id>": ["run"]}`) is reported and grants nothing, since any
 * extension could claim the id. A project's settings never grant (settings.ts warns); the CLI
 * (`pier grant` / `pier revoke`) and the chamber edit this one file, and the bridge reads it at the
 * moment it checks an answer, so a change applies to running sessions too.
 *
 * Writes re-read the file under pi's own settings lock (proper-lockfile's convention: a `settings.json.lock`
 * directory, stale after 10 s), change only `extensionHost.grants`, keep every other key as it was, and
 * replace the file atomically. pi's SettingsManager merges its own changes into the file the same way, so
 * neither loses the other's keys.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { auditGrantChange } from "../../audit/grant-audit.js";
import { identifierProblem } from "../manifest.js";
import { editSettingsFile } from "../settings-file.js";
import { jsonSyntaxProblem } from "../json-syntax.js";
import { GRANTS, type Grant, isGrant, sortedGrants } from "./vocabulary.js";

export interface GrantEntry {
	dir: string;
	digest: string;
	grants: ReadonlySet<Grant>;
}

export type GrantTable = ReadonlyMap<string, GrantEntry>;

export interface GrantsRead {
	grants: GrantTable;
	/** Bad values, each naming the file and field; the bad part grants nothing. */
	problems: string[];
}

export const settingsFileOf = (agentDir: string): string => join(agentDir, "settings.json");

const field = (id?: string) => `extensionHost.grants${id === undefined ? "" : `[${JSON.stringify(id)}]`}`;

/** `extensionHost.grants` of one parsed settings object; `file` names it in problems. */
export function parseGrants(settings: unknown, file: string): GrantsRead {
	const grants = new Map<string, GrantEntry>();
	const problems: string[] = [];
	const host = (settings as { extensionHost?: unknown } | null | undefined)?.extensionHost;
	const value = host && typeof host === "object" ? (host as { grants?: unknown }).grants : undefined;
	if (value === undefined) return { grants, problems };
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		problems.push(`${file}: ${field()} must be an object of extension id → {dir, digest, grants} (ignored)`);
		return { grants, problems };
	}
	for (const [id, entry] of Object.entries(value)) {
		const idProblem = identifierProblem(id);
		if (idProblem) {
			problems.push(`${file}: ${field(id)}: extension id ${idProblem} (ignored)`);
			continue;
		}
		if (Array.isArray(entry)) {
			problems.push(
				`${file}: ${field(id)}: a bare list of grants (the old form) grants nothing: a grant is bound to the extension's directory and code; give it again with: pier grant ${id} ${entry.filter(isGrant).join(" ") || "<grant…>"}`,
			);
			continue;
		}
		const { dir, digest, grants: list } = (entry ?? {}) as { dir?: unknown; digest?: unknown; grants?: unknown };
		if (
			entry === null ||
			typeof entry !== "object" ||
			typeof dir !== "string" ||
			!isAbsolute(dir) ||
			typeof digest !== "string" ||
			!/^sha256:[0-9a-f]{64}$/.test(digest) ||
			!Array.isArray(list)
		) {
			problems.push(
				`${file}: ${field(id)} must be {"dir": "<absolute directory>", "digest": "sha256:…", "grants": [...]} as pier grant writes it (ignored)`,
			);
			continue;
		}
		const set = new Set<Grant>();
		list.forEach((name, index) => {
			if (isGrant(name)) set.add(name);
			else
				problems.push(
					`${file}: ${field(id)}.grants[${index}]: unknown grant ${JSON.stringify(name)} (known grants: ${GRANTS.join(", ")}; ignored)`,
				);
		});
		grants.set(id, { dir, digest, grants: set });
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
			problems: [`${file}: not valid JSON (${jsonSyntaxProblem(text, error)}); nothing is granted`],
		};
	}
	return parseGrants(settings, file);
}

export class GrantStoreError extends Error {
	override name = "GrantStoreError";
}

/**
 * Replaces one extension's grants with `change(current)`; returns what it has afterwards. With `bind` the
 * entry is (re)bound to that directory and digest, and grants bound to anything else are not carried over:
 * changed code starts from nothing. Without it (revoking by id) the entry keeps its binding.
 */
export async function changeGrants(
	agentDir: string,
	extensionId: string,
	change: (current: ReadonlySet<Grant>) => Iterable<Grant>,
	bind?: { dir: string; digest: string },
): Promise<Grant[]> {
	const idProblem = identifierProblem(extensionId);
	if (idProblem) throw new GrantStoreError(`extension id ${idProblem}`);
	const file = settingsFileOf(agentDir);
	let before: Grant[] = [];
	let boundTo: string | undefined;
	const now = await editSettingsFile(
		file,
		(message) => new GrantStoreError(message),
		(settings) => {
			const existing = parseGrants(settings, file).grants.get(extensionId);
			const same = existing && (!bind || (existing.dir === bind.dir && existing.digest === bind.digest));
			before = same ? sortedGrants(existing.grants) : [];
			const next = sortedGrants(change(same ? existing.grants : new Set<Grant>()));
			const binding = bind ?? existing;
			boundTo = binding?.dir;
			if (next.length > 0 && !binding) throw new GrantStoreError(`extension "${extensionId}" has no grants to change`);
			const host = settings.extensionHost;
			if (host !== undefined && (host === null || typeof host !== "object" || Array.isArray(host)))
				throw new GrantStoreError(`${file}: extensionHost must be an object; fix it first`);
			const hostObject = { ...((host as Record<string, unknown> | undefined) ?? {}) };
			const table = hostObject.grants;
			const grants: Record<string, unknown> =
				table && typeof table === "object" && !Array.isArray(table) ? { ...(table as Record<string, unknown>) } : {};
			if (next.length > 0) grants[extensionId] = { dir: binding!.dir, digest: binding!.digest, grants: next };
			else delete grants[extensionId];
			if (Object.keys(grants).length > 0) hostObject.grants = grants;
			else delete hostObject.grants;
			if (Object.keys(hostObject).length > 0) settings.extensionHost = hostObject;
			else delete settings.extensionHost;
			return next;
		},
	);
	// Recorded once the file holds the change: a refused edit changed nothing.
	auditGrantChange(agentDir, extensionId, before, now, boundTo);
	return now;
}
