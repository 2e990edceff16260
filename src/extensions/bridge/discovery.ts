/**
 * Where protocol extensions come from: `-e <dir>` holding a pi-extension.json,
 * `<agentDir>/extensions/<name>/pi-extension.json` (user) and
 * `<project>/.pi/extensions/<name>/pi-extension.json` (project, trusted only).
 * Everything else given with `-e` stays pi's to load.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { projectConfigDir } from "../../agent/paths.js";
import type { ExtensionSpec } from "../host/instance.js";
import { type ExtensionOrigin, loadManifest, MANIFEST_FILE } from "../manifest.js";
import { processSpec } from "../runtimes/process/launcher.js";
import { quickjsSpec } from "../runtimes/quickjs/launcher.js";

export interface ManifestSource {
	path: string;
	origin: ExtensionOrigin;
}

export interface Discovery {
	sources: ManifestSource[];
	/** `-e` paths that are pi extensions (TS/JS files and directories). */
	piPaths: string[];
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

function manifestDirs(root: string): string[] {
	if (!existsSync(root)) return [];
	return readdirSync(root, { withFileTypes: true })
		.filter((entry) => !entry.name.startsWith(".") && (entry.isDirectory() || entry.isSymbolicLink()))
		.map((entry) => join(root, entry.name))
		.filter((dir) => existsSync(join(dir, MANIFEST_FILE)))
		.sort();
}

export function discoverProtocolExtensions(options: {
	cwd: string;
	agentDir: string;
	cliPaths: readonly string[];
	includeDiscovered: boolean;
	projectTrusted: boolean;
}): Discovery {
	const discovery: Discovery = { sources: [], piPaths: [], diagnostics: [] };
	for (const path of options.cliPaths) {
		const absolute = resolve(options.cwd, path);
		if (isManifestPath(absolute)) discovery.sources.push({ path: absolute, origin: "cli" });
		else discovery.piPaths.push(absolute);
	}
	if (!options.includeDiscovered) return discovery;
	for (const dir of manifestDirs(join(options.agentDir, "extensions")))
		discovery.sources.push({ path: dir, origin: "user" });
	for (const dir of manifestDirs(join(projectConfigDir(options.cwd), "extensions"))) {
		if (options.projectTrusted) discovery.sources.push({ path: dir, origin: "project" });
		else
			discovery.diagnostics.push(
				`refusing untrusted project extension manifest ${join(dir, MANIFEST_FILE)} (pass --approve to trust the project)`,
			);
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
			if (manifest.runtime.kind === "quickjs") {
				specs.push(
					quickjsSpec(manifest, {
						cwd: options.cwd,
						projectTrusted: options.projectTrusted,
						deadlineMs: options.deadlineMs,
						...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
					}),
				);
				continue;
			}
			specs.push(
				processSpec(manifest, {
					cwd: options.cwd,
					projectTrusted: options.projectTrusted,
					...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
					...(options.environment ? { environment: options.environment } : {}),
				}),
			);
		} catch (error) {
			diagnostics.push((error as Error).message);
		}
	}
	return { specs, diagnostics };
}
