/** A validated `runtime: native` manifest → the host's ExtensionSpec: a plugin host child per library. */
import { fileURLToPath } from "node:url";
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import { type ChildSpecOptions, childLaunch, manifestSpec } from "../spec.js";
import type { NativeChannel } from "./channel.js";

/** The plugin host's main, beside this file in dist. */
export const PLUGIN_HOST_SCRIPT = fileURLToPath(new URL("./plugin-host.js", import.meta.url));

export type NativeSpecOptions = ChildSpecOptions;

/** Loaded at the first launch: a session without native plugins never reads the channel. */
const channelModule = (): Promise<{ NativeChannel: typeof NativeChannel }> => import("./channel.js");

export function nativeSpec(manifest: ExtensionManifest, options: NativeSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "native") throw new Error(`${manifest.manifestPath}: not a native extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new (await channelModule()).NativeChannel(
				{
					...childLaunch(manifest, options),
					library: runtime.library,
					capabilities: manifest.capabilities,
					uiCapabilities: manifest.uiCapabilities,
					version: manifest.version,
				},
				PLUGIN_HOST_SCRIPT,
			),
	);
}
