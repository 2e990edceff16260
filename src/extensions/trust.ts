/**
 * The one trust check for project-local extensions.
 *
 * A project's `.pi/` can carry extensions (auto-discovered `.pi/extensions/`,
 * `extensions` and `packages` in `.pi/settings.json`); loading them runs the
 * project's code, and resolving `packages` may even install it. Until pier has a
 * trust store, a project is trusted only when the user says so with `--approve`.
 *
 * An untrusted project still gets its other settings; pi sees a project settings
 * view in which extensions are excluded and packages are absent, so nothing of
 * the project's runs or installs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { projectConfigDir } from "../agent/paths.js";

export interface TrustOptions {
	/** `--approve` (true), `--no-approve` (false), or unset. */
	approve?: boolean;
}

export interface TrustDecision {
	trusted: boolean;
	/** Whether the project carries anything that trust would gate. */
	hasProjectExtensions: boolean;
	/** No flag decided: extensions' trust hooks (project_trust, trust_decision) may still approve. */
	undecided?: boolean;
	/** Shown to the user when project extensions are skipped. */
	reason?: string;
}

const GATED_KEYS = ["extensions", "packages"] as const;
/** pi's override pattern that disables every auto-discovered project extension. */
const EXCLUDE_ALL = ["!**"];

function readProjectSettings(cwd: string): Record<string, unknown> | undefined {
	const file = join(projectConfigDir(cwd), "settings.json");
	if (!existsSync(file)) return undefined;
	try {
		const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
		return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : undefined;
	} catch {
		return undefined;
	}
}

export function hasProjectExtensions(cwd: string): boolean {
	if (existsSync(join(projectConfigDir(cwd), "extensions"))) return true;
	const settings = readProjectSettings(cwd);
	return GATED_KEYS.some((key) => Array.isArray(settings?.[key]) && (settings[key] as unknown[]).length > 0);
}

export function decideProjectTrust(cwd: string, options: TrustOptions): TrustDecision {
	const gated = hasProjectExtensions(cwd);
	if (!gated) return { trusted: true, hasProjectExtensions: false };
	if (options.approve === true) return { trusted: true, hasProjectExtensions: true };
	const how = options.approve === false ? "--no-approve was given" : "pass --approve to trust it";
	return {
		trusted: false,
		hasProjectExtensions: true,
		undecided: options.approve === undefined,
		reason: `project extensions in ${projectConfigDir(cwd)} were not loaded: the project is not trusted (${how})`,
	};
}

type SettingsStorage = Parameters<typeof SettingsManager.fromStorage>[0];
type SettingsScope = Parameters<SettingsStorage["withLock"]>[0];

/**
 * pi's settings for `cwd`, with the project's extension sources hidden when the
 * project is not trusted. Writes to the project scope keep the hidden keys as
 * they are on disk.
 */
export function settingsForTrust(cwd: string, agentDir: string, trust: TrustDecision): SettingsManager {
	const files = SettingsManager.create(cwd, agentDir);
	if (trust.trusted) return files;
	// pi 0.74.2 exports `fromStorage` but not its file storage (with pi's locking); reuse the instance's.
	const inner = (files as unknown as { storage: SettingsStorage }).storage;
	return SettingsManager.fromStorage(new UntrustedProjectSettingsStorage(inner));
}

class UntrustedProjectSettingsStorage implements SettingsStorage {
	constructor(private readonly inner: SettingsStorage) {}

	withLock(scope: SettingsScope, fn: (current: string | undefined) => string | undefined) {
		if (scope !== "project") return this.inner.withLock(scope, fn);
		this.inner.withLock(scope, (current) => {
			const original = parseObject(current);
			const next = fn(JSON.stringify({ ...original, packages: [], extensions: EXCLUDE_ALL }));
			if (next === undefined) return undefined;
			const written = parseObject(next);
			for (const key of GATED_KEYS) {
				if (key in original) written[key] = original[key];
				else delete written[key];
			}
			return JSON.stringify(written, null, 2);
		});
	}
}

function parseObject(text: string | undefined): Record<string, unknown> {
	if (!text) return {};
	try {
		const value: unknown = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

/** The decision once a user-level extension's trust hook approved the project. */
export function approvedByExtension(decision: TrustDecision, extensionId: string): TrustDecision {
	return {
		trusted: true,
		hasProjectExtensions: decision.hasProjectExtensions,
		reason: `project trusted by extension ${extensionId}`,
	};
}
