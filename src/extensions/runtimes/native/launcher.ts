/** A validated `runtime: native` manifest → the host's ExtensionSpec: a plugin host child per library. */
import { fileURLToPath } from "node:url";
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import { type ChildSpecOptions, childLaunch, manifestSpec } from "../spec.js";
import { NativeChannel } from "./channel.js";
import { toolStep } from "./tool-step-build.js";

/** The plugin host's main, beside this file in dist. */
export const PLUGIN_HOST_SCRIPT = fileURLToPath(new URL("./plugin-host.js", import.meta.url));

export type NativeSpecOptions = ChildSpecOptions;

export function nativeSpec(manifest: ExtensionManifest, options: NativeSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "native") throw new Error(`${manifest.manifestPath}: not a native extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new NativeChannel(
				{
					...childLaunch(manifest, options),
					library: runtime.library,
					capabilities: manifest.capabilities,
					uiCapabilities: manifest.uiCapabilities,
					version: manifest.version,
					toolStep: (await toolStep()).path,
				},
				PLUGIN_HOST_SCRIPT,
			),
	);
}
