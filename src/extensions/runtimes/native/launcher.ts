/** A validated `runtime: native` manifest → the host's ExtensionSpec: a plugin host child per library. */
import { fileURLToPath } from "node:url";
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import type { PermissionSet } from "../../protocol/capabilities.js";
import { manifestSpec } from "../spec.js";
import { NativeChannel } from "./channel.js";

/** The plugin host's main, beside this file in dist. */
export const PLUGIN_HOST_SCRIPT = fileURLToPath(new URL("./plugin-host.js", import.meta.url));

export interface NativeSpecOptions {
	cwd: string;
	projectTrusted: boolean;
	granted?: PermissionSet;
	environment?: Readonly<Record<string, string>>;
	packageId?: string;
	maxFrameBytes?: number;
}

export function nativeSpec(manifest: ExtensionManifest, options: NativeSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "native") throw new Error(`${manifest.manifestPath}: not a native extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new NativeChannel(
				{
					id: manifest.id,
					library: runtime.library,
					capabilities: manifest.capabilities,
					uiCapabilities: manifest.uiCapabilities,
					cwd: manifest.root,
					source: manifest.manifestPath,
					...(options.environment ? { environment: options.environment } : {}),
					...(options.packageId ? { packageId: options.packageId } : {}),
					...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
				},
				PLUGIN_HOST_SCRIPT,
			),
	);
}
