/**
 * pier's audit trail: one JSON line per decision about what runs (a permission rule's hit, a grant used or
 * changed, a trust decision, a package installed, updated or removed, a policy refusal), appended in order to
 * `<agentDir>/pier-audit.jsonl`, like Deno's permission audit log. Lines are appended synchronously (O_APPEND, one
 * write each) so that the order in the file is the order of the decisions, across the daemon and the CLI alike.
 * Past `AUDIT_ROTATE_BYTES` the file moves to `.1` (older ones shift up to `.AUDIT_KEEP`) before the next line.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { agentDir } from "../agent-dir.js";

export const AUDIT_FILE_NAME = "pier-audit.jsonl";
export const AUDIT_ROTATE_BYTES = 8 * 1024 * 1024;
/** How many rotated files are kept beside the live one. */
export const AUDIT_KEEP = 4;

/** What was decided about. */
export type AuditKind =
	| "permission" // a permission rule's hit: decision allow | deny | ask-allowed | ask-rejected | ask-refused
	| "grant.use" // a sandboxed extension used (or was refused) a grant
	| "grant.change" // a grant given or revoked
	| "trust" // a project or extension trusted, or refused
	| "package.install"
	| "package.update"
	| "package.remove"
	| "package.enable"
	| "package.disable"
	| "policy"; // the extension policy refused an install or a load

export interface AuditEntry {
	/** ISO time of the decision. */
	time: string;
	kind: AuditKind;
	/** allow, deny, ask-allowed, ask-rejected, refused, installed… */
	decision: string;
	/** What it was about: a command, a path, a tool name, a package source, an extension id. */
	subject: string;
	session?: string;
	extension?: string;
	/** The rule or pattern that decided, as the user wrote it. */
	rule?: string;
	/** Where that rule came from (a settings file) or who decided (the user, in which surface). */
	source?: string;
	/** The tool concerned, for permission decisions. */
	tool?: string;
	detail?: string;
}

export type AuditRecord = Omit<AuditEntry, "time"> & { time?: string };

export function auditFile(dir: string = agentDir()): string {
	return join(dir, AUDIT_FILE_NAME);
}

function rotate(file: string): void {
	rmSync(`${file}.${AUDIT_KEEP}`, { force: true });
	for (let n = AUDIT_KEEP - 1; n >= 1; n--)
		if (existsSync(`${file}.${n}`)) renameSync(`${file}.${n}`, `${file}.${n + 1}`);
	renameSync(file, `${file}.1`);
}

/**
 * Appends one decision. A trail that cannot be written never stops the work it records: the failure is reported
 * once on stderr per process and the decision stands.
 */
export function recordAudit(record: AuditRecord, file: string = auditFile()): AuditEntry {
	const entry: AuditEntry = { ...record, time: record.time ?? new Date().toISOString() };
	const line = `${JSON.stringify(entry)}\n`;
	try {
		mkdirSync(dirname(file), { recursive: true });
		if (existsSync(file) && statSync(file).size + line.length > AUDIT_ROTATE_BYTES) rotate(file);
		appendFileSync(file, line, { mode: 0o600 });
	} catch (error) {
		if (!warned) {
			warned = true;
			process.stderr.write(`pier: cannot write the audit trail ${file}: ${(error as Error).message}\n`);
		}
	}
	return entry;
}
let warned = false;

export interface AuditQuery {
	/** Only decisions at or after this time. */
	since?: Date;
	session?: string;
	kind?: AuditKind;
}

/**
 * Every decision in the trail, oldest first, across the rotated files. A line that is not a JSON object (a torn
 * write after a crash) is skipped, not fatal: the rest of the trail stays readable.
 */
export function readAudit(query: AuditQuery = {}, file: string = auditFile()): AuditEntry[] {
	const files = [];
	for (let n = AUDIT_KEEP; n >= 1; n--) files.push(`${file}.${n}`);
	files.push(file);
	const since = query.since?.getTime();
	const out: AuditEntry[] = [];
	for (const path of files) {
		if (!existsSync(path)) continue;
		for (const line of readFileSync(path, "utf8").split("\n")) {
			if (line.trim() === "") continue;
			let entry: AuditEntry;
			try {
				entry = JSON.parse(line) as AuditEntry;
			} catch {
				continue;
			}
			if (entry === null || typeof entry !== "object" || typeof entry.time !== "string") continue;
			if (since !== undefined && Date.parse(entry.time) < since) continue;
			if (query.session !== undefined && entry.session !== query.session) continue;
			if (query.kind !== undefined && entry.kind !== query.kind) continue;
			out.push(entry);
		}
	}
	return out;
}
