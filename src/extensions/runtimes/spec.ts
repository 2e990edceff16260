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
		runtime: manifest.runtime.kind,
		launch,
	};
}
