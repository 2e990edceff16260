/**
 * Switching an installed package off and on, in pi's own settings terms so pi honours it too: a package is off
 * when its entry filters every resource type to `[]` (packages/filter.ts `disablesEverything`).
 *
 * - for all projects: the package's own entry (user or project settings) is switched; filters it had are kept
 *   under `pierSavedFilters` and come back when it is switched on;
 * - for one project: a user package gets an entry of the same identity in that project's settings, switched
 *   off (a project entry overrides the user's, pi's rule); switching it on there removes that entry. A package
 *   of the project itself is switched in its own entry. The project must be trusted: pier never writes an
 *   untrusted project's settings.
 */
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { disablesEverything } from "../packages/filter.js";
import { localPath, type PackageScope, parseScopedSource, scopeBaseDir } from "../packages/sources.js";
import { decideProjectTrust } from "../trust.js";
import { TrustStore } from "../trust-store.js";
import type { SwitchOutcome } from "./wire.js";

const TYPES = ["extensions", "skills", "prompts", "themes"] as const;
const SAVED = "pierSavedFilters";

export class SwitchError extends Error {
	override name = "SwitchError";
	constructor(
		message: string,
		readonly code: "not_found" | "trust_required",
	) {
		super(message);
	}
}

type Entry = unknown;

const sourceOf = (entry: Entry): string | undefined =>
	typeof entry === "string"
		? entry
		: typeof (entry as { source?: unknown } | null)?.source === "string"
			? (entry as { source: string }).source
			: undefined;

export function identityOfEntry(entry: Entry, scope: PackageScope, cwd: string, agentDir: string): string | undefined {
	const source = sourceOf(entry);
	if (source === undefined) return undefined;
	try {
		return parseScopedSource(source, scopeBaseDir(scope, cwd, agentDir)).identity;
	} catch {
		return undefined;
	}
}

/** The entry switched off: every type `[]`, the filters it had kept aside. */
export function switchedOff(entry: Entry): Entry {
	if (disablesEverything(entry)) return entry;
	const object: Record<string, unknown> =
		typeof entry === "string" ? { source: entry } : { ...(entry as Record<string, unknown>) };
	const saved = Object.fromEntries(TYPES.filter((t) => object[t] !== undefined).map((t) => [t, object[t]]));
	for (const t of TYPES) object[t] = [];
	if (Object.keys(saved).length > 0) object[SAVED] = saved;
	return object;
}

/** The entry switched on: the filters it had before, or none (a plain source string). */
export function switchedOn(entry: Entry): Entry {
	if (!disablesEverything(entry)) return entry;
	const object = { ...(entry as Record<string, unknown>) };
	const saved = (object[SAVED] ?? {}) as Record<string, unknown>;
	delete object[SAVED];
	for (const t of TYPES) {
		if (saved[t] !== undefined) object[t] = saved[t];
		else delete object[t];
	}
	return Object.keys(object).length === 1 ? object.source : object;
}

function settingsFor(cwd: string, agentDir: string): SettingsManager {
	const projectTrusted = decideProjectTrust(cwd, { agentDir }).trusted;
	return SettingsManager.create(cwd, agentDir, { projectTrusted });
}

function entriesOf(settings: SettingsManager, scope: PackageScope): Entry[] {
	return [...((scope === "project" ? settings.getProjectSettings() : settings.getGlobalSettings()).packages ?? [])];
}

async function save(settings: SettingsManager, scope: PackageScope, entries: Entry[]): Promise<void> {
	type Entries = Parameters<SettingsManager["setPackages"]>[0];
	if (scope === "project") settings.setProjectPackages(entries as Entries);
	else settings.setPackages(entries as Entries);
	await settings.flush();
}

/**
 * The project must be trusted. One that had nothing pier loads ("nothing to trust") is trusted by the store from
 * now on: the settings file written here would otherwise make it ask, and until answered its switch would not
 * apply.
 */
function requireTrusted(cwd: string, agentDir: string): { recorded: boolean } {
	const trust = decideProjectTrust(cwd, { agentDir });
	if (!trust.trusted)
		throw new SwitchError(
			`project ${trust.cwd} is not trusted; refusing to change its packages (trust it first: pier trust ${trust.cwd})`,
			"trust_required",
		);
	if (trust.source !== "nothing-to-trust") return { recorded: false };
	new TrustStore(agentDir).set(trust.cwd, true);
	return { recorded: true };
}

/**
 * Switches the package of `identity` on or off, for every project (`project` undefined) or for the project at
 * `project`. Returns where the change was written.
 */
export async function switchPackage(options: {
	agentDir: string;
	identity: string;
	enabled: boolean;
	/** The one project to switch it in; undefined: everywhere. */
	project?: string;
}): Promise<SwitchOutcome> {
	const { agentDir, identity } = options;
	const cwd = options.project ?? agentDir;
	// Looked up before anything is written: an unknown package records no trust.
	const settings = settingsFor(cwd, agentDir);
	const known = ["user", "project"].some((scope) =>
		entriesOf(settings, scope as PackageScope).some(
			(e) => identityOfEntry(e, scope as PackageScope, cwd, agentDir) === identity,
		),
	);
	if (!known) throw new SwitchError(`no configured package is ${identity} (see pier list)`, "not_found");
	const trustRecorded = options.project !== undefined && requireTrusted(cwd, agentDir).recorded;
	return { ...(await write(settings, options, cwd)), ...(trustRecorded ? { trustRecorded } : {}) };
}

async function write(
	settings: SettingsManager,
	options: { agentDir: string; identity: string; enabled: boolean; project?: string },
	cwd: string,
): Promise<SwitchOutcome> {
	const { agentDir, identity, enabled } = options;
	const find = (scope: PackageScope) =>
		entriesOf(settings, scope).findIndex((e) => identityOfEntry(e, scope, cwd, agentDir) === identity);
	const flip = (entry: Entry) => (enabled ? switchedOn(entry) : switchedOff(entry));

	if (options.project !== undefined) {
		const project = entriesOf(settings, "project");
		const at = find("project");
		const userAt = find("user");
		if (at >= 0 && userAt >= 0 && disablesEverything(project[at])) {
			// The project's override of a user package: on means the user's entry applies again.
			if (enabled) project.splice(at, 1);
			await save(settings, "project", project);
			return { scope: "user", file: "project", enabled };
		}
		if (at >= 0) {
			project[at] = flip(project[at]);
			await save(settings, "project", project);
			return { scope: "project", file: "project", enabled };
		}
		if (userAt < 0) throw new SwitchError(`no configured package is ${identity} (see pier list)`, "not_found");
		if (enabled) return { scope: "user", file: "project", enabled };
		// A user package's local path is relative to the agent directory; the project's entry names it absolutely.
		const userEntry = entriesOf(settings, "user")[userAt];
		const parsed = parseScopedSource(sourceOf(userEntry)!, agentDir);
		const source = parsed.kind === "local" ? localPath(parsed.path, agentDir) : parsed.source;
		project.push(switchedOff(source));
		await save(settings, "project", project);
		return { scope: "user", file: "project", enabled };
	}
	const user = entriesOf(settings, "user");
	const at = find("user");
	if (at < 0) throw new SwitchError(`no user package is ${identity} (see pier list)`, "not_found");
	user[at] = flip(user[at]);
	await save(settings, "user", user);
	return { scope: "user", file: "user", enabled };
}
