/**
 * The audit trail's lines about project trust: every decision stored in the trust store (by `pier trust`, the
 * chamber, the terminal's question or an extension's trust hook), and decisions for one run that an extension's
 * trust hook or the user's answer made without storing them.
 */
import { type AuditEntry, auditFile, recordAudit } from "./audit-log.js";

const DECISION = { true: "trusted", false: "not trusted", null: "forgotten" } as const;

/** A stored decision: `value` null forgets the directory's own entry. */
export function auditTrust(agentDir: string, dir: string, value: boolean | null, by?: string): AuditEntry {
	return recordAudit(
		{
			kind: "trust",
			decision: DECISION[`${value}`],
			subject: dir,
			...(by ? { source: by } : {}),
			detail: "stored in trust.json",
		},
		auditFile(agentDir),
	);
}

/** A decision for this run only (not stored). `extension`: the extension whose trust hook decided. */
export function auditTrustOnce(
	agentDir: string,
	dir: string,
	trusted: boolean,
	by: string,
	extension?: string,
): AuditEntry {
	return recordAudit(
		{
			kind: "trust",
			decision: trusted ? "trusted" : "not trusted",
			subject: dir,
			source: by,
			...(extension ? { extension } : {}),
			detail: "for this run",
		},
		auditFile(agentDir),
	);
}
