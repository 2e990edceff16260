/**
 * The audit trail's lines about grants: each answer of a sandboxed extension that needed a grant (used, or
 * refused for want of it), and each change to the grants the user gave (`pier grant`, `pier revoke`, the
 * chamber's Grants view: all through the grants store).
 */
import type { GrantUse } from "../extensions/bridge/grant-gate.js";
import { type AuditEntry, auditFile, recordAudit } from "./audit-log.js";

export function auditGrantUse(
	file: string,
	extension: string,
	session: string | undefined,
	use: GrantUse,
	allowed: boolean,
): AuditEntry {
	return recordAudit(
		{
			kind: "grant.use",
			decision: allowed ? "used" : "refused",
			subject: use.what,
			extension,
			rule: use.grant,
			...(session ? { session } : {}),
			...(use.toolName ? { tool: use.toolName } : {}),
			detail: `${use.hook} hook`,
		},
		file,
	);
}

/** One extension's grants as they were and as they are now; nothing is recorded when nothing changed. */
export function auditGrantChange(
	agentDir: string,
	extension: string,
	before: readonly string[],
	after: readonly string[],
	dir?: string,
): AuditEntry | undefined {
	const given = after.filter((g) => !before.includes(g));
	const taken = before.filter((g) => !after.includes(g));
	if (given.length === 0 && taken.length === 0) return undefined;
	const words = [
		...(given.length > 0 ? [`gave ${given.join(", ")}`] : []),
		...(taken.length > 0 ? [`revoked ${taken.join(", ")}`] : []),
	];
	return recordAudit(
		{
			kind: "grant.change",
			decision: after.length === 0 ? "revoked" : given.length > 0 ? "granted" : "revoked",
			subject: after.length > 0 ? `${extension}: ${after.join(", ")}` : `${extension}: no grants`,
			extension,
			detail: `${words.join("; ")}${dir ? ` (${dir})` : ""}`,
		},
		auditFile(agentDir),
	);
}
