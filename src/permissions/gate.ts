/**
 * The permission gate: the check every tool call passes after every hook has rewritten it, just before pi runs
 * the tool (src/pi-seams/tool-call-gate.ts puts it there). It reads the rules afresh, decides, asks the user
 * through the session's UI when a rule says ask (pi's terminal shows pi's selector, the chamber its dialog),
 * writes the rule an "always" answer makes, and records each decision in the audit trail. A refusal is the
 * tool's error, naming the rule and the file it came from.
 */
import { recordAudit } from "../audit/audit-log.js";
import { editSettingsFile } from "../extensions/settings-file.js";
import { decide, ruleFor, type Unit, type Verdict } from "./decide.js";
import { globalSettingsFile, loadRules } from "./load.js";
import type { RuleList } from "./rules.js";

/** The four answers of the ask dialog, in the order shown. */
export const ASK_CHOICES = {
	allowOnce: "Allow once",
	allowAlways: "Allow always",
	rejectOnce: "Reject once",
	rejectAlways: "Reject always",
} as const;

/** The part of the session's UI the gate uses: the same `select` an extension's `ctx.ui.select` reaches. */
export interface GateUi {
	hasUI(): boolean;
	select(title: string, options: string[]): Promise<string | undefined>;
	notify?(message: string, type: "info" | "warning" | "error"): void;
}

export interface GateOptions {
	cwd: string;
	agentDir: string;
	/** Read at each call: a project's rules count only while it is trusted. */
	trusted(): boolean;
	/** `--approve`: a run without a UI approves asks instead of refusing them. */
	approve: boolean;
	sessionId(): string | undefined;
	ui(): GateUi;
	/** Where decisions are recorded (default: the agent directory's audit file). */
	auditFile?: string;
}

export interface ToolCallToGate {
	toolName: string;
	toolCallId?: string;
	input: unknown;
}

export type GateResult = { block: true; reason: string } | undefined;

const quoteRule = (verdict: Verdict) => `"${verdict.rule?.text}" in ${verdict.source}`;

/** The one line a dialog and a refusal show for the call. */
function describe(tool: string, subject: string): string {
	const shown = subject.length > 300 ? `${subject.slice(0, 300)}…` : subject;
	return tool === "bash" ? `bash: ${shown}` : subject === tool ? tool : `${tool} ${shown}`;
}

/** Writes one rule per asked unit into `list` of the global settings; a rule already there is not repeated. */
async function writeRules(agentDir: string, list: RuleList, rules: string[]): Promise<string> {
	const file = globalSettingsFile(agentDir);
	await editSettingsFile(
		file,
		(message) => new Error(message),
		(settings) => {
			const permissions =
				settings.permissions && typeof settings.permissions === "object" && !Array.isArray(settings.permissions)
					? (settings.permissions as Record<string, unknown>)
					: {};
			const current = Array.isArray(permissions[list]) ? (permissions[list] as unknown[]) : [];
			permissions[list] = [...current, ...rules.filter((rule) => !current.includes(rule))];
			settings.permissions = permissions;
		},
	);
	return file;
}

export async function gateToolCall(options: GateOptions, call: ToolCallToGate): Promise<GateResult> {
	const tool = call.toolName;
	const loaded = loadRules(options.cwd, options.trusted(), options.agentDir);
	const session = options.sessionId();
	const audit = (decision: string, verdict: Verdict | undefined, subject: string, extra: Record<string, string> = {}) =>
		recordAudit(
			{
				kind: "permission",
				decision,
				subject,
				tool,
				...(session ? { session } : {}),
				...(verdict?.rule ? { rule: verdict.rule.text, source: verdict.rule.source } : {}),
				...extra,
			},
			...(options.auditFile ? [options.auditFile] : []),
		);
	if (loaded.blocking.length > 0) {
		const reason = `pier permissions: ${loaded.blocking[0]}`;
		audit("deny", undefined, tool, { detail: loaded.blocking[0]! });
		return { block: true, reason };
	}
	const verdict = decide({ tool, input: call.input, cwd: options.cwd }, loaded.rules);
	const what = describe(tool, verdict.subject);
	switch (verdict.decision) {
		case "none":
			return undefined;
		case "allow":
			audit("allow", verdict, verdict.subject);
			return undefined;
		case "deny":
			audit("deny", verdict, verdict.subject);
			return { block: true, reason: `pier permissions: ${what} is denied by the rule ${quoteRule(verdict)}` };
		case "ask":
			return ask(options, verdict, tool, what, audit);
	}
}

async function ask(
	options: GateOptions,
	verdict: Verdict,
	tool: string,
	what: string,
	audit: (decision: string, verdict: Verdict, subject: string, extra?: Record<string, string>) => void,
): Promise<GateResult> {
	const ui = options.ui();
	if (!ui.hasUI()) {
		if (options.approve) {
			audit("ask-allowed", verdict, verdict.subject, { detail: "approved by --approve" });
			return undefined;
		}
		audit("ask-refused", verdict, verdict.subject, { detail: "no one to ask (headless run)" });
		return {
			block: true,
			reason: `pier permissions: ${what} needs your approval (the rule ${quoteRule(verdict)}), and this run has no one to ask: run it again with --approve, or in the terminal or the chamber`,
		};
	}
	const title = `Allow ${what}? (ask rule ${quoteRule(verdict)})`;
	const answer = await ui.select(title, Object.values(ASK_CHOICES));
	const always = answer === ASK_CHOICES.allowAlways || answer === ASK_CHOICES.rejectAlways;
	const allowed = answer === ASK_CHOICES.allowOnce || answer === ASK_CHOICES.allowAlways;
	let detail: string = answer ?? "no answer";
	if (always) {
		const list: RuleList = allowed ? "allow" : "deny";
		const rules = (verdict.asked ?? []).map((unit: Unit) => ruleFor(tool, unit));
		try {
			const file = await writeRules(options.agentDir, list, rules);
			detail = `${answer}: wrote ${list} ${rules.join(", ")} to ${file}`;
		} catch (error) {
			// The answer still holds for this call; the rule could not be kept.
			detail = `${answer}, but the rule was not written: ${(error as Error).message}`;
			ui.notify?.(`pier permissions: ${detail}`, "error");
		}
	}
	audit(allowed ? "ask-allowed" : "ask-rejected", verdict, verdict.subject, { detail });
	if (allowed) return undefined;
	return {
		block: true,
		reason: `pier permissions: you rejected ${what} (it asks by the rule ${quoteRule(verdict)})`,
	};
}
