/**
 * The runtimes a manifest can name, in one table: each turns a validated manifest into the host's launch
 * spec. Discovery, `pier ext` and anything else that starts manifests go through `launchSpec`, so a new
 * runtime is one row here, not another branch in every caller.
 */
import type { ExtensionSpec } from "../host/instance.js";
import type { ExtensionManifest, RuntimeKind } from "../manifest.js";
import type { PermissionSet } from "../protocol/capabilities.js";
import { nativeSpec } from "./native/launcher.js";
import { processSpec } from "./process/launcher.js";
import { quickjsSpec } from "./quickjs/launcher.js";

/** Everything any runtime's spec maker may use; each takes what it needs. */
export interface LaunchOptions {
	/** The session's directory, sent in `hello` as the extension's cwd. */
	cwd: string;
	projectTrusted: boolean;
	/** What the host grants; defaults to exactly what the manifest declares. */
	granted?: PermissionSet;
	maxFrameBytes?: number;
	/** Declared environment entries for a child process (process and native runtimes). */
	environment?: Readonly<Record<string, string>>;
	/** A package's identity, for the child's `PI_EXTENSION_PACKAGE_ID`. */
	packageId?: string;
	/** QuickJS's interrupt deadline: the invocation timeout. */
	deadlineMs: number;
}

type SpecMaker = (manifest: ExtensionManifest, options: LaunchOptions) => ExtensionSpec;

export const RUNTIMES: Readonly<Record<RuntimeKind, SpecMaker>> = {
	process: (manifest, options) => processSpec(manifest, options),
	quickjs: (manifest, options) => quickjsSpec(manifest, options),
	native: (manifest, options) => nativeSpec(manifest, options),
};

/** The launch spec of a validated manifest, whatever its runtime. */
export function launchSpec(manifest: ExtensionManifest, options: LaunchOptions): ExtensionSpec {
	return RUNTIMES[manifest.runtime.kind](manifest, options);
}
