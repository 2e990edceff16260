/**
 * The two trust hooks, produced while a session starts, before any project
 * extension could run. Only extensions the user installed (or passed with -e)
 * are loaded at that point, so a project can never vote on its own trust.
 *
 * - `project_trust` {type, cwd, hasUI, counts}: asked only when no flag decided;
 *   the first `{trusted: boolean}` answer decides (pi's semantics; `null` is no opinion).
 * - `trust_decision` {path, decision, isNew} (rpi): every hooking extension sees the
 *   tentative decision; `{approve: true}` can only upgrade an undecided project, never
 *   override `--no-approve`.
 *
 * Only code that already runs as the user may answer: a sandboxed (QuickJS) extension that could trust a project
 * would gain exactly what its sandbox withholds (the project's code running in Node). Its answers are ignored, and
 * the user is told once which extension answered.
 */
import type { ExtensionHost } from "../host/host.js";
import type { TrustDecision } from "../trust.js";
import { isSandboxed } from "./grant-gate.js";
import { HookResultError, hookAnswerProblem } from "./hook-results.js";

async function ask(host: ExtensionHost, hook: string, data: unknown, ignored: Set<string>) {
	const answers: Array<{ extensionId: string; answer: unknown }> = [];
	for (const outcome of await host.emit(hook, data)) {
		// Fail closed for trust: an extension that errs or times out gives no approval.
		if (!outcome.result.ok) continue;
		const answer = outcome.result.value;
		if (isSandboxed(outcome.instance)) {
			if (answer !== null && answer !== undefined) ignored.add(outcome.instance.id);
			continue;
		}
		answers.push({ extensionId: outcome.instance.id, answer });
	}
	return answers;
}

/** The hook table's answer schema decides the shape (kit/core/hook-table.mjs). */
function isShape(hook: string, answer: unknown): answer is Record<string, boolean> {
	return hookAnswerProblem(hook, answer) === undefined;
}

/** The id of the extension that approved the project, or undefined. */
export async function consultTrustHooks(
	host: ExtensionHost,
	trust: TrustDecision,
	context: { cwd: string; hasUI: boolean; projectExtensions: number; report: (message: string) => void },
): Promise<string | undefined> {
	if (trust.resources.length === 0) return undefined;
	const ignored = new Set<string>();
	try {
		return await decide(host, trust, context, ignored);
	} finally {
		for (const id of ignored)
			context.report(
				`the trust answer of extension ${id} was ignored: it is sandboxed (QuickJS), and only extensions that run as your own code decide a project's trust`,
			);
	}
}

async function decide(
	host: ExtensionHost,
	trust: TrustDecision,
	context: { cwd: string; hasUI: boolean; projectExtensions: number },
	ignored: Set<string>,
): Promise<string | undefined> {
	if (trust.undecided && host.hasHook("project_trust")) {
		const data = {
			type: "project_trust",
			cwd: context.cwd,
			hasUI: context.hasUI,
			counts: { extensions: context.projectExtensions },
		};
		for (const { extensionId, answer } of await ask(host, "project_trust", data, ignored)) {
			if (answer === null || answer === undefined) continue;
			if (!isShape("project_trust", answer)) {
				throw new HookResultError(
					`invalid project_trust result from extension ${extensionId}: expected {"trusted":boolean}`,
				);
			}
			return answer.trusted ? extensionId : undefined;
		}
	}
	if (!host.hasHook("trust_decision")) return undefined;
	const decision = trust.trusted ? "trusted" : trust.undecided ? "ask" : "untrusted";
	let approvedBy: string | undefined;
	const data = { type: "trust_decision", path: context.cwd, decision, isNew: true };
	for (const { extensionId, answer } of await ask(host, "trust_decision", data, ignored)) {
		if (answer === null || answer === undefined) continue;
		if (!isShape("trust_decision", answer)) {
			throw new HookResultError(
				`invalid trust_decision result from extension ${extensionId}: expected {"approve":boolean}`,
			);
		}
		if (answer.approve && decision === "ask") approvedBy ??= extensionId;
	}
	return approvedBy;
}
