/**
 * What pi's resource loader is about to import, seen before it imports it. pi's loader asks its
 * `DefaultPackageManager` (`resolve()` for settings, packages and auto-discovery; `resolveExtensionSources()` for
 * `-e`) and imports every enabled path of the answer in the same call; `extensionsOverride` runs after import,
 * too late. The package manager is a class field of pi's loader, made inside `createAgentSessionServices` and used
 * at once, so the check sits on pi's prototype. Which session an answer belongs to is told by the settings manager
 * the package manager holds (a private field).
 */
import { DefaultPackageManager } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, type Seam } from "./seam.js";

export type ResolvedPaths = Awaited<ReturnType<DefaultPackageManager["resolve"]>>;

/**
 * Sees each answer before pi's loader acts on it; `settings` is the settings manager the package manager reads,
 * `fromCli` tells `-e` paths. The returned paths are what pi imports.
 */
export type AnswerCheck = (settings: object, paths: ResolvedPaths, fromCli: boolean) => ResolvedPaths;

let check: AnswerCheck | undefined;

/** Installs `answers` as the one check of every package manager's answer (a second call replaces it). */
export function checkPackageManagerAnswers(answers: AnswerCheck): void {
	if (!check) install();
	check = answers;
}

function install(): void {
	const proto = DefaultPackageManager.prototype;
	const resolvePaths = proto.resolve;
	const resolveSources = proto.resolveExtensionSources;
	proto.resolve = async function (this: DefaultPackageManager, ...args: Parameters<typeof resolvePaths>) {
		return checked(this, await resolvePaths.apply(this, args), false);
	};
	proto.resolveExtensionSources = async function (
		this: DefaultPackageManager,
		...args: Parameters<typeof resolveSources>
	) {
		return checked(this, await resolveSources.apply(this, args), true);
	};
}

function checked(manager: DefaultPackageManager, paths: ResolvedPaths, fromCli: boolean): ResolvedPaths {
	const settings = (manager as unknown as { settingsManager?: unknown }).settingsManager;
	// A pi whose package manager no longer holds its settings manager would make every check miss: fail closed.
	if (!settings || typeof settings !== "object")
		throw new Error("pier: pi's package manager has no settingsManager (pi changed?); not loading extensions");
	return check ? check(settings, paths, fromCli) : paths;
}

const id = { name: "package-manager", file: "src/pi-seams/package-manager.ts" };

type PiIndex = typeof import("@earendil-works/pi-coding-agent");

export const seam: Seam = {
	...id,
	members: [
		"DefaultPackageManager.prototype.resolve(onMissing), .resolveExtensionSources(sources, options): replaced",
		"private DefaultPackageManager.settingsManager: read",
		"core/resource-loader.js calls this.packageManager.resolve() and .resolveExtensionSources(",
	],
	async check(roots) {
		const findings = new Findings(id);
		const pi = await loadForCheck<PiIndex>(findings, roots.codingAgent, "dist/index.js");
		const proto = pi?.DefaultPackageManager?.prototype;
		findings.fn(proto, "resolve", "DefaultPackageManager.prototype.resolve", 1);
		findings.fn(proto, "resolveExtensionSources", "DefaultPackageManager.prototype.resolveExtensionSources", 2);
		if (pi?.DefaultPackageManager && pi.SettingsManager) {
			const settingsManager = pi.SettingsManager.inMemory();
			const manager = new pi.DefaultPackageManager({ cwd: "/", agentDir: "/", settingsManager });
			if ((manager as unknown as { settingsManager?: unknown }).settingsManager !== settingsManager)
				findings.add("a DefaultPackageManager no longer holds its settings manager in the field settingsManager");
		}
		findings.calls(roots.codingAgent, "dist/core/resource-loader.js", "this.packageManager.resolve(");
		findings.calls(roots.codingAgent, "dist/core/resource-loader.js", "this.packageManager.resolveExtensionSources(");
		findings.done();
	},
};
