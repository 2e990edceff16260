/**
 * Where protocol extensions come from: `-e <dir>` holding a pi-extension.json,
 * `<agentDir>/extensions/<name>/pi-extension.json` (user) and
 * `<project>/.pi/extensions/<name>/pi-extension.json` (project, trusted only).
 * Everything else given with `-e` stays pi's to load.
 */
import { existsSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { projectConfigDir } from "../project-dir.js";
import type { ExtensionSpec } from "../host/instance.js";
import { type ExtensionOrigin, loadManifest, MANIFEST_FILE } from "../manifest.js";
import { isPackageSource, parseSource } from "../packages/sources.js";
import { launchSpec } from "../runtimes/table.js";
import { enclosingManifestDir, manifestDirsIn } from "../manifest-dirs.js";
import { type ExtensionPolicy, loadRefusal } from "../policy/policy.js";
import { manifestSubject } from "../policy/subjects.js";

export interface ManifestSource {
	path: string;
	origin: ExtensionOrigin;
	/** A package's identity (`git:host/owner/repo`, …): the process's `PI_EXTENSION_PACKAGE_ID`. */
	packageId?: string;
}

export interface Discovery {
	sources: ManifestSource[];
	/** `-e` paths that are pi extensions (TS/JS files and directories). */
	piPaths: string[];
	/** Manifests of an untrusted project, not loaded (the session's one trust line says so). */
	skippedProject: string[];
	diagnostics: string[];
}

export function isManifestPath(path: string): boolean {
	try {
		const stat = statSync(path);
		if (stat.isDirectory()) return existsSync(join(path, MANIFEST_FILE));
		return basename(path) === MANIFEST_FILE;
	} catch {
		return false;
	}
}

export function discoverProtocolExtensions(options: {
	cwd: string;
	agentDir: string;
	cliPaths: readonly string[];
	includeDiscovered: boolean;
	projectTrusted: boolean;
}): Discovery {
	const discovery: Discovery = { sources: [], piPaths: [], skippedProject: [], diagnostics: [] };
	for (const path of options.cliPaths) {
		const absolute = resolve(options.cwd, path);
		const manifestDir = isManifestPath(absolute) ? undefined : enclosingManifestDir(absolute);
		if (isManifestPath(absolute)) discovery.sources.push({ path: absolute, origin: "cli" });
		// A file of a pier extension directory would run in Node, outside the runtime its manifest names.
		else if (manifestDir)
			discovery.diagnostics.push(
				`-e ${path}: ${absolute} is inside the pier extension directory ${manifestDir} (it has ${MANIFEST_FILE}); pass -e ${manifestDir} to load that extension`,
			);
		else if (!existsSync(absolute) && isPackageSource(path)) {
			// pi's own `-e <package source>` (a temporary install), with the source and ref checked first.
			try {
				const parsed = parseSource(path);
				if (parsed.kind === "git" && parsed.host === "file")
					throw new Error(`-e ${path}: file:// repositories load as settings packages: pier install ${path}`);
				discovery.piPaths.push(path);
			} catch (error) {
				discovery.diagnostics.push((error as Error).message);
			}
		} else discovery.piPaths.push(absolute);
	}
	if (!options.includeDiscovered) return discovery;
	for (const dir of manifestDirsIn(join(options.agentDir, "extensions")))
		discovery.sources.push({ path: dir, origin: "user" });
	for (const dir of manifestDirsIn(join(projectConfigDir(options.cwd), "extensions"))) {
		if (options.projectTrusted) discovery.sources.push({ path: dir, origin: "project" });
		else discovery.skippedProject.push(join(dir, MANIFEST_FILE));
	}
	return discovery;
}

export interface SpecOptions {
	cwd: string;
	projectTrusted: boolean;
	maxFrameBytes?: number;
	environment?: Readonly<Record<string, string>>;
	/** QuickJS's interrupt deadline: the invocation timeout. */
	deadlineMs: number;
	/** The extension policy each manifest is checked against once its id is known (refusals audited). */
	policy?: { policy: ExtensionPolicy; agentDir: string };
}

/** Validates each manifest (failing closed, per manifest) and makes the host's launch specs. */
export function protocolSpecs(
	sources: readonly ManifestSource[],
	options: SpecOptions,
): { specs: ExtensionSpec[]; diagnostics: string[] } {
	const specs: ExtensionSpec[] = [];
	const diagnostics: string[] = [];
	for (const source of sources) {
		try {
			const manifest = loadManifest(source.path, { origin: source.origin, projectTrusted: options.projectTrusted });
			const refused =
				options.policy &&
				loadRefusal(options.policy.policy, manifestSubject(source.path, manifest.id, source.packageId), {
					agentDir: options.policy.agentDir,
					name: manifest.id,
					audit: true,
				});
			if (refused) throw new Error(`extension ${manifest.id} (${source.path}) not loaded: ${refused}`);
			specs.push(
				launchSpec(manifest, {
					cwd: options.cwd,
					projectTrusted: options.projectTrusted,
					deadlineMs: options.deadlineMs,
					...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
					...(options.environment ? { environment: options.environment } : {}),
					...(source.packageId ? { packageId: source.packageId } : {}),
				}),
			);
		} catch (error) {
			const message = (error as Error).message;
			diagnostics.push(source.packageId ? `package ${source.packageId}: ${message}` : message);
		}
	}
	return { specs, diagnostics };
}
