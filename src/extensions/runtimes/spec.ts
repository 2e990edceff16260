/** The part of a launch spec every runtime shares, read from its validated manifest. */
import type { ExtensionSpec } from "../host/instance.js";
import type { ExtensionManifest } from "../manifest.js";
import { type PermissionSet, permissions } from "../protocol/capabilities.js";

/** What every runtime's spec shares: identity, trust and the granted permissions. */
export function manifestSpec(
	manifest: ExtensionManifest,
	options: { cwd: string; projectTrusted: boolean; granted?: PermissionSet },
	launch: ExtensionSpec["launch"],
): ExtensionSpec {
	return {
		id: manifest.id,
		source: manifest.manifestPath,
		cwd: options.cwd,
		projectTrusted: options.projectTrusted,
		granted: options.granted ?? permissions(manifest.capabilities, manifest.uiCapabilities),
		declared: permissions(manifest.capabilities, manifest.uiCapabilities),
		runtime: manifest.runtime.kind,
		launch,
	};
}

/** What a child-process runtime (process, native) takes beyond the shared spec. */
export interface ChildSpecOptions {
	cwd: string;
	projectTrusted: boolean;
	/** What the host grants; defaults to exactly what the manifest declares. */
	granted?: PermissionSet;
	/** Declared environment entries for the child (nothing else of pier's environment is passed). */
	environment?: Readonly<Record<string, string>>;
	packageId?: string;
	maxFrameBytes?: number;
}

/** The launch fields every child channel takes from the manifest and the options. */
export function childLaunch(manifest: ExtensionManifest, options: ChildSpecOptions) {
	return {
		id: manifest.id,
		cwd: manifest.root,
		source: manifest.manifestPath,
		...(options.environment ? { environment: options.environment } : {}),
		...(options.packageId ? { packageId: options.packageId } : {}),
		...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
	};
}
