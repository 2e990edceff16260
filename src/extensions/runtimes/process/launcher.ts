/** A validated `runtime: process` manifest → the host's ExtensionSpec. */
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import type { PermissionSet } from "../../protocol/capabilities.js";
import { manifestSpec } from "../spec.js";
import { ProcessChannel } from "./channel.js";

export interface ProcessSpecOptions {
	/** The session's directory, sent in `hello` as the extension's cwd. */
	cwd: string;
	projectTrusted: boolean;
	/** What the host grants; defaults to exactly what the manifest declares. */
	granted?: PermissionSet;
	/** Declared environment entries for the child (nothing else of pier's environment is passed). */
	environment?: Readonly<Record<string, string>>;
	packageId?: string;
	maxFrameBytes?: number;
}

export function processSpec(manifest: ExtensionManifest, options: ProcessSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "process") throw new Error(`${manifest.manifestPath}: not a process extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new ProcessChannel({
				id: manifest.id,
				executable: runtime.executable,
				arguments: runtime.arguments,
				cwd: manifest.root,
				source: manifest.manifestPath,
				...(options.environment ? { environment: options.environment } : {}),
				...(options.packageId ? { packageId: options.packageId } : {}),
				...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
			}),
	);
}
