/** A validated `runtime: quickjs` manifest → the host's ExtensionSpec. */
import type { ExtensionSpec } from "../../host/instance.js";
import type { ExtensionManifest } from "../../manifest.js";
import type { PermissionSet } from "../../protocol/capabilities.js";
import { manifestSpec } from "../spec.js";
import type { QuickJsChannel } from "./channel.js";

export interface QuickJsSpecOptions {
	cwd: string;
	projectTrusted: boolean;
	granted?: PermissionSet;
	maxFrameBytes?: number;
	/** The interrupt deadline for one turn of guest work: the invocation timeout. */
	deadlineMs: number;
	memoryBytes?: number;
	watchdogMs?: number;
}

/** Loaded at the first launch, with the worker pool: a session without QuickJS extensions never reads them. */
const channelModule = (): Promise<{ QuickJsChannel: typeof QuickJsChannel }> => import("./channel.js");

export function quickjsSpec(manifest: ExtensionManifest, options: QuickJsSpecOptions): ExtensionSpec {
	const runtime = manifest.runtime;
	if (runtime.kind !== "quickjs") throw new Error(`${manifest.manifestPath}: not a QuickJS extension`);
	return manifestSpec(
		manifest,
		options,
		async () =>
			new (await channelModule()).QuickJsChannel({
				manifest: {
					id: manifest.id,
					name: manifest.id,
					version: manifest.version ?? "0.0.0",
					capabilities: manifest.capabilities,
					uiCapabilities: manifest.uiCapabilities,
				},
				entry: runtime.entry,
				root: manifest.root,
				deadlineMs: options.deadlineMs,
				...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
				...(options.memoryBytes ? { memoryBytes: options.memoryBytes } : {}),
				...(options.watchdogMs ? { watchdogMs: options.watchdogMs } : {}),
			}),
	);
}
