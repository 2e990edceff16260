/**
 * The extension policy: `"extensionPolicy": {"allow": [...], "block": [...]}` in the user's global settings.json
 * (never a project's: a cloned repository must not be able to widen, or even narrow, what the machine's user
 * allows). Block wins over allow; a non-empty allow list refuses whatever it does not match. It is read afresh at
 * every decision, so a change applies to the next install and the next load without a restart.
 *
 * A malformed policy fails closed: every install and every load is refused, naming the file and the field, until
 * it is fixed. A policy exists to keep something out; if a typo dropped it silently, what it blocks would run and
 * nobody would know. Refusing everything makes the mistake visible at once, and costs only the fix.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { auditFile, recordAudit } from "../../audit/audit-log.js";
import { projectConfigDir } from "../project-dir.js";
import type { ParsedSource } from "../packages/sources.js";
import { parsePattern, type PolicyPattern, type PolicySubject, patternMatches } from "./patterns.js";
import { packageSubject } from "./subjects.js";

export const POLICY_KEY = "extensionPolicy";

export interface ExtensionPolicy {
	/** The settings file it was read from. */
	file: string;
	allow: PolicyPattern[];
	block: PolicyPattern[];
	/** Set when the policy is malformed: everything is refused with it. */
	problem?: string;
}

/** Where a subject stands. `pattern` is the pattern that decided, as written. */
export type Standing =
	/** `byId`: no source pattern admits it, but the allow list's `id:` patterns may admit its extensions. */
	| { standing: "allowed"; pattern?: string; byId?: true }
	| { standing: "blocked"; pattern: string }
	| { standing: "not-allowed" }
	| { standing: "malformed"; problem: string };

export function globalSettingsFile(agentDir: string): string {
	return join(agentDir, "settings.json");
}

/** The policy in `<agentDir>/settings.json`; no policy (nothing refused) when the file or the key is absent. */
export function readExtensionPolicy(agentDir: string): ExtensionPolicy {
	const file = globalSettingsFile(agentDir);
	const policy: ExtensionPolicy = { file, allow: [], block: [] };
	if (!existsSync(file)) return policy;
	let json: unknown;
	try {
		const text = readFileSync(file, "utf8");
		// A settings file pi cannot parse either is pi's to report; it holds a policy only if it names one.
		if (!text.includes(`"${POLICY_KEY}"`)) return policy;
		json = JSON.parse(text);
	} catch (error) {
		policy.problem = `cannot be read (${(error as Error).message})`;
		return policy;
	}
	const value = (json as Record<string, unknown> | null)?.[POLICY_KEY];
	if (value === undefined) return policy;
	if (value === null || typeof value !== "object" || Array.isArray(value)) {
		policy.problem = `${POLICY_KEY}: must be an object {"allow": [...], "block": [...]}`;
		return policy;
	}
	for (const key of Object.keys(value)) {
		if (key !== "allow" && key !== "block") {
			policy.problem = `${POLICY_KEY}.${key}: unknown field (only "allow" and "block")`;
			return policy;
		}
	}
	for (const field of ["allow", "block"] as const) {
		const list = (value as Record<string, unknown>)[field];
		if (list === undefined) continue;
		if (!Array.isArray(list)) {
			policy.problem = `${POLICY_KEY}.${field}: must be an array of pattern strings`;
			return policy;
		}
		for (const [index, text] of list.entries()) {
			try {
				if (typeof text !== "string") throw new Error(`is a ${text === null ? "null" : typeof text}, not a string`);
				policy[field].push(parsePattern(text));
			} catch (error) {
				policy.problem = `${POLICY_KEY}.${field}[${index}]: ${(error as Error).message}`;
				return policy;
			}
		}
	}
	return policy;
}

/** Whether the policy says anything (a policy-less machine shows no standings). */
export function policyActive(policy: ExtensionPolicy): boolean {
	return policy.problem !== undefined || policy.allow.length > 0 || policy.block.length > 0;
}

/**
 * Where `subject` stands. `idsUnknown`: the extensions' ids are not known yet (an install, a package before its
 * contents are read), so an allow list holding `id:` patterns may still admit what it holds: it is not refused
 * for want of a source match; its extensions are checked one by one at load.
 */
export function standingOf(policy: ExtensionPolicy, subject: PolicySubject, idsUnknown = false): Standing {
	if (policy.problem !== undefined) return { standing: "malformed", problem: policy.problem };
	const blocked = policy.block.find((p) => patternMatches(p, subject));
	if (blocked) return { standing: "blocked", pattern: blocked.text };
	if (policy.allow.length === 0) return { standing: "allowed" };
	const allowed = policy.allow.find((p) => patternMatches(p, subject));
	if (allowed) return { standing: "allowed", pattern: allowed.text };
	if (idsUnknown && policy.allow.some((p) => p.kind === "id")) return { standing: "allowed", byId: true };
	return { standing: "not-allowed" };
}

/** The sentence a refusal says: the policy's file, the field and the pattern. Undefined when it is allowed. */
export function refusalReason(policy: ExtensionPolicy, standing: Standing): string | undefined {
	switch (standing.standing) {
		case "allowed":
			return undefined;
		case "blocked":
			return `blocked by the extension policy in ${policy.file}: ${POLICY_KEY}.block pattern "${standing.pattern}"`;
		case "not-allowed":
			return `not allowed by the extension policy in ${policy.file}: no ${POLICY_KEY}.allow pattern matches (${policy.allow.map((p) => `"${p.text}"`).join(", ")})`;
		case "malformed":
			return `the extension policy in ${policy.file} is malformed, so nothing is installed or loaded until it is fixed: ${standing.problem}`;
	}
}

/** The rule an audit line names: the pattern, or the field that decided. */
function ruleOf(standing: Standing): string {
	if (standing.standing === "blocked") return standing.pattern;
	if (standing.standing === "not-allowed") return `${POLICY_KEY}.allow`;
	if (standing.standing === "malformed") return POLICY_KEY;
	return standing.pattern ?? "";
}

/** Records a refusal in the audit trail (`kind: "policy"`); `what` says whether an install or a load was refused. */
export function auditRefusal(
	policy: ExtensionPolicy,
	standing: Standing,
	record: { agentDir: string; subject: string; what: "install" | "load"; extension?: string; session?: string },
): void {
	recordAudit(
		{
			kind: "policy",
			decision: "refused",
			subject: record.subject,
			rule: ruleOf(standing),
			source: policy.file,
			detail: `${record.what}: ${refusalReason(policy, standing)}`,
			...(record.extension ? { extension: record.extension } : {}),
			...(record.session ? { session: record.session } : {}),
		},
		auditFile(record.agentDir),
	);
}

/** A refused install: its message names the file, the field and the pattern. */
export class PolicyRefusal extends Error {
	override name = "PolicyRefusal";
	constructor(
		readonly subject: string,
		readonly reason: string,
	) {
		super(`${subject}: ${reason}`);
	}
}

/**
 * Refuses (throws PolicyRefusal, audited) an install or update of the package `parsed`. Every path that installs
 * a package calls this before anything is fetched or written.
 */
export function refuseInstallByPolicy(agentDir: string, parsed: ParsedSource): void {
	const policy = readExtensionPolicy(agentDir);
	if (!policyActive(policy)) return;
	const standing = standingOf(policy, packageSubject(parsed), true);
	const reason = refusalReason(policy, standing);
	if (reason === undefined) return;
	auditRefusal(policy, standing, { agentDir, subject: parsed.identity, what: "install" });
	throw new PolicyRefusal(`not installing ${parsed.source}`, reason);
}

/** Said when a project's settings try to set the policy: only the global file can. */
export function projectPolicyIgnored(cwd: string, agentDir: string): string | undefined {
	const file = join(projectConfigDir(cwd), "settings.json");
	try {
		const text = readFileSync(file, "utf8");
		if (!text.includes(`"${POLICY_KEY}"`)) return undefined;
		const json = JSON.parse(text) as Record<string, unknown> | null;
		if (json === null || typeof json !== "object" || !(POLICY_KEY in json)) return undefined;
	} catch {
		return undefined;
	}
	return `${file}: ${POLICY_KEY} is ignored: the extension policy is read from the global settings only (${globalSettingsFile(agentDir)})`;
}

/**
 * Why `subject` (named `name` in messages and the audit trail) must not load under `policy`, if it must not.
 * `audit: false` for what only looks (`pier list`, the chamber's list): a refusal is recorded when it happens.
 */
export function loadRefusal(
	policy: ExtensionPolicy,
	subject: PolicySubject,
	options: { agentDir: string; name: string; audit: boolean; idsUnknown?: boolean },
): string | undefined {
	if (!policyActive(policy)) return undefined;
	const standing = standingOf(policy, subject, options.idsUnknown);
	const reason = refusalReason(policy, standing);
	if (reason !== undefined && options.audit)
		auditRefusal(policy, standing, {
			agentDir: options.agentDir,
			// The package it comes from, else where it is on disk.
			subject: subject.source ?? subject.paths[0] ?? options.name,
			what: "load",
			...(subject.id ? { extension: subject.id } : {}),
		});
	return reason;
}
