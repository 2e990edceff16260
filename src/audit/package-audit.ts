/**
 * The audit trail's lines about packages: one per install, update or removal that completed (settings and files
 * both changed), whichever surface asked for it. A failed operation records nothing: it decided nothing.
 */
import type { ParsedSource } from "../extensions/packages/sources.js";
import { type AuditEntry, type AuditKind, auditFile, recordAudit } from "./audit-log.js";

export type PackageChange = Extract<AuditKind, `package.${string}`>;

const DECISION: Record<PackageChange, string> = {
	"package.install": "installed",
	"package.update": "updated",
	"package.remove": "removed",
	"package.enable": "enabled",
	"package.disable": "disabled",
};

/** A package as the trail names it: its source, a local one by its absolute directory. */
export const packageSubject = (parsed: ParsedSource): string => (parsed.kind === "local" ? parsed.path : parsed.source);

export function auditPackage(
	agentDir: string,
	kind: PackageChange,
	parsed: ParsedSource,
	scope: "user" | "project",
	detail?: string,
	by = "pier",
): AuditEntry {
	return recordAudit(
		{
			kind,
			decision: DECISION[kind],
			subject: packageSubject(parsed),
			source: `${by} (${scope})`,
			...(detail ? { detail } : {}),
		},
		auditFile(agentDir),
	);
}
