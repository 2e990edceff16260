/**
 * The grants a running extension holds: the store's entry for its id, if that entry is bound to the directory
 * the extension was loaded from and to the code found there when its session bound it. Read fresh at each
 * check, so a grant or revoke applies to running sessions at once.
 */
import { dirname } from "node:path";
import type { GrantLookup } from "../bridge/grant-gate.js";
import type { ExtensionInstance } from "../host/instance.js";
import { grantTarget, packageDigest } from "./identity.js";
import { installedExtensions } from "./overview.js";
import { readGrants } from "./store.js";
import type { Grant } from "./vocabulary.js";

const NONE: ReadonlySet<Grant> = new Set();

export function grantLookup(agentDir: string): GrantLookup {
	// The digest of what was loaded, taken once: a file changed under a running extension changes nothing.
	const identities = new WeakMap<ExtensionInstance, { dir: string; digest?: string; problem?: string }>();
	return (instance) => {
		let identity = identities.get(instance);
		if (!identity) {
			const dir = dirname(instance.spec.source);
			try {
				identity = { dir, digest: packageDigest(dir) };
			} catch (error) {
				identity = { dir, problem: (error as Error).message };
			}
			identities.set(instance, identity);
		}
		const entry = readGrants(agentDir).grants.get(instance.id);
		if (!entry) return { grants: NONE, target: target(agentDir, instance.id, identity.dir) };
		const denied = (note: string) => ({ grants: NONE, target: target(agentDir, instance.id, identity.dir), note });
		if (entry.dir !== identity.dir)
			return denied(
				`the grants for "${instance.id}" belong to the extension in ${entry.dir}, not to this one in ${identity.dir}`,
			);
		if (identity.problem) return denied(identity.problem);
		if (entry.digest !== identity.digest)
			return denied(`its code in ${identity.dir} changed since the grant was given, so the grant no longer applies`);
		return { grants: entry.grants, target: instance.id };
	};
}

function target(agentDir: string, id: string, dir: string): string {
	return grantTarget(id, dir, installedExtensions(agentDir));
}
