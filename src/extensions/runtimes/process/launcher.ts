/** A validated `runtime: process` manifest → the host's ExtensionSpec. */
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import { type ChildSpecOptions, childLaunch, manifestSpec } from "../spec.js";
import type { ProcessChannel } from "./channel.js";

export type ProcessSpecOptions = ChildSpecOptions;

/** Loaded at the first launch: a session without process extensions (most runs) never reads it. */
const channelModule = (): Promise<{ ProcessChannel: typeof ProcessChannel }> => import("./channel.js");

export function processSpec(manifest: ExtensionManifest, options: ProcessSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "process") throw new Error(`${manifest.manifestPath}: not a process extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new (await channelModule()).ProcessChannel({
				...childLaunch(manifest, options),
				executable: runtime.executable,
				arguments: runtime.arguments,
			}),
	);
}
