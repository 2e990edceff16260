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
		const dir = identity.dir;
		// The hint reads the installed extensions: worked out only when a denial is actually written.
		const held = (grants: ReadonlySet<Grant>, note?: string) => ({
			grants,
			get target() {
				return grantTarget(instance.id, dir, installedExtensions(agentDir));
			},
			...(note ? { note } : {}),
		});
		if (!entry) return held(NONE);
		if (entry.dir !== dir)
			return held(
				NONE,
				`the grants for "${instance.id}" belong to the extension in ${entry.dir}, not to this one in ${dir}`,
			);
		if (identity.problem) return held(NONE, identity.problem);
		if (entry.digest !== identity.digest)
			return held(NONE, `its code in ${dir} changed since the grant was given, so the grant no longer applies`);
		return held(entry.grants);
	};
}
