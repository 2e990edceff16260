/**
 * The grants chosen in an install's confirmation, given once the package is installed: each to the installed
 * extension with that id, bound (as `pier grant` binds) to its directory and code, and only when that code has
 * the digest the inspection showed. Code that changed between the inspection and the install (a moved tag, a
 * republished version, an edited directory) gets nothing, and the answer says so.
 */
import { identityOf } from "../grants/identity.js";
import { changeGrants } from "../grants/store.js";
import { isGrant } from "../grants/vocabulary.js";
import { isManifestRuntime } from "../manifest.js";
import { resolvePackages } from "../packages/resolve.js";
import { decideProjectTrust } from "../trust.js";
import { settingsForTrust } from "../trust-settings.js";
import type { GrantOutcome } from "./wire.js";

export interface GrantChoice {
	/** The extension's manifest id. */
	id: string;
	/** Its digest in the inspection the user confirmed. */
	digest: string;
	grants: string[];
}

export async function grantInstalled(options: {
	agentDir: string;
	cwd: string;
	/** The installed package's identity. */
	identity: string;
	choices: readonly GrantChoice[];
}): Promise<GrantOutcome> {
	const outcome: GrantOutcome = { granted: [], refused: [] };
	const wanted = options.choices.filter((c) => c.grants.length > 0);
	if (wanted.length === 0) return outcome;
	const { cwd, agentDir } = options;
	const trust = decideProjectTrust(cwd, { agentDir });
	const resolution = await resolvePackages({
		cwd,
		agentDir,
		settingsManager: settingsForTrust({ cwd, agentDir, trust, packages: "as-configured" }),
		projectTrusted: trust.trusted,
		install: false,
	});
	const pkg = resolution.packages.find((p) => p.identity === options.identity && p.state === "installed");
	for (const choice of wanted) {
		const unknown = choice.grants.find((g) => !isGrant(g));
		if (unknown !== undefined) {
			outcome.refused.push({ id: choice.id, reason: `unknown grant ${JSON.stringify(unknown)}` });
			continue;
		}
		const candidates = (pkg?.extensions ?? []).filter((e) => isManifestRuntime(e.kind) && e.enabled);
		let bound: ReturnType<typeof identityOf> | undefined;
		let found = false;
		for (const e of candidates) {
			try {
				const identity = identityOf(e.path);
				if (identity.id !== choice.id) continue;
				found = true;
				if (identity.digest === choice.digest) bound = identity;
			} catch {
				// a manifest that does not load is granted nothing
			}
		}
		if (!bound) {
			outcome.refused.push({
				id: choice.id,
				reason: found
					? "its installed code is not the code inspected (the digest differs): nothing granted; inspect it again"
					: "no installed extension of the package has that id",
			});
			continue;
		}
		if (bound.runtime !== "quickjs") {
			outcome.refused.push({ id: choice.id, reason: "grants apply to QuickJS extensions only" });
			continue;
		}
		const grants = await changeGrants(agentDir, choice.id, () => choice.grants.filter(isGrant), bound);
		outcome.granted.push({ id: choice.id, dir: bound.dir, grants });
	}
	return outcome;
}
