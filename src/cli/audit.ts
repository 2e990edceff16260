/** `pier audit [--json] [--since …] [--session …]`: reads the audit trail (src/audit/audit-log.ts). */
import { parseArgs } from "node:util";
import { type AuditEntry, auditFile, readAudit } from "../audit/audit-log.js";
import { parseSince, SINCE_FORMS } from "../audit/since.js";
import { ArgsError } from "./args.js";

export const AUDIT_HELP = `Usage:
  pier audit [--json] [--since <time>] [--session <id>]

Every decision pier recorded about what runs, oldest first: grants used, refused and changed, projects
trusted or not, packages installed, updated and removed, permission rule hits and policy refusals.
The trail is <agentDir>/pier-audit.jsonl (rotated past 8 MiB into .1 … .4, all read here).

  --json            one JSON object per line, as the file holds them
  --since <time>    only decisions at or after it: ${SINCE_FORMS}
  --session <id>    only decisions made in that session
`;

// An extension chooses some subjects (a command it rewrote, a tool name): in a terminal, a control character
// could move the cursor or recolour what follows, so every one (and the bidi controls) is shown as an escape.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;
const shown = (text: string) =>
	text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);

/** The one word that says who or what decided, for the table. */
function who(entry: AuditEntry): string {
	return entry.extension ?? entry.rule ?? entry.source ?? "";
}

function table(entries: readonly AuditEntry[]): string {
	const rows = entries.map((e) =>
		[e.time, e.kind, e.decision, e.session ?? "", who(e), e.subject].map((c) => shown(String(c))),
	);
	const head = ["TIME", "KIND", "DECISION", "SESSION", "BY", "SUBJECT"];
	// The subject, last and unpadded, is the long column: a command or a path is never cut.
	const widths = head.slice(0, -1).map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
	const line = (cells: string[]) =>
		cells
			.map((cell, i) => (i < widths.length ? cell.padEnd(widths[i]!) : cell))
			.join("  ")
			.trimEnd();
	return `${[head, ...rows].map(line).join("\n")}\n`;
}

export function auditCommand(argv: readonly string[]): number {
	let values: { json?: boolean; since?: string; session?: string; help?: boolean };
	try {
		({ values } = parseArgs({
			args: [...argv],
			strict: true,
			allowPositionals: false,
			options: {
				json: { type: "boolean" },
				since: { type: "string" },
				session: { type: "string" },
				help: { type: "boolean", short: "h" },
			},
		}));
	} catch (error) {
		throw new ArgsError(`audit: ${(error as Error).message}`);
	}
	if (values.help) {
		process.stdout.write(AUDIT_HELP);
		return 0;
	}
	let since: Date | undefined;
	if (values.since !== undefined) {
		const parsed = parseSince(values.since);
		if (!(parsed instanceof Date)) throw new ArgsError(`audit --since: ${parsed.problem}`);
		since = parsed;
	}
	if (values.session !== undefined && values.session.trim() === "")
		throw new ArgsError("audit --session: give a session id");
	const entries = readAudit({
		...(since ? { since } : {}),
		...(values.session !== undefined ? { session: values.session } : {}),
	});
	if (values.json) {
		process.stdout.write(entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
		return 0;
	}
	if (entries.length === 0) {
		process.stdout.write(`no decisions${since || values.session ? " match" : " yet"} in ${auditFile()}\n`);
		return 0;
	}
	process.stdout.write(table(entries));
	return 0;
}
