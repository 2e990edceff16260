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
 */
import type { ExtensionHost } from "../host/host.js";
import type { TrustDecision } from "../trust.js";
import { HookResultError } from "./hook-results.js";

async function ask(host: ExtensionHost, hook: string, data: unknown) {
	const answers: Array<{ extensionId: string; answer: unknown }> = [];
	for (const outcome of await host.emit(hook, data)) {
		// Fail closed for trust: an extension that errs or times out gives no approval.
		if (outcome.result.ok) answers.push({ extensionId: outcome.instance.id, answer: outcome.result.value });
	}
	return answers;
}

function isShape(answer: unknown, key: string): answer is Record<string, boolean> {
	return (
		answer !== null &&
		typeof answer === "object" &&
		Object.keys(answer).every((k) => k === key) &&
		typeof (answer as Record<string, unknown>)[key] === "boolean"
	);
}

/** The id of the extension that approved the project, or undefined. */
export async function consultTrustHooks(
	host: ExtensionHost,
	trust: TrustDecision,
	context: { cwd: string; hasUI: boolean; projectExtensions: number },
): Promise<string | undefined> {
	if (trust.resources.length === 0) return undefined;
	if (trust.undecided && host.hasHook("project_trust")) {
		const data = {
			type: "project_trust",
			cwd: context.cwd,
			hasUI: context.hasUI,
			counts: { extensions: context.projectExtensions },
		};
		for (const { extensionId, answer } of await ask(host, "project_trust", data)) {
			if (answer === null || answer === undefined) continue;
			if (!isShape(answer, "trusted")) {
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
	for (const { extensionId, answer } of await ask(host, "trust_decision", {
		type: "trust_decision",
		path: context.cwd,
		decision,
		isNew: true,
	})) {
		if (answer === null || answer === undefined) continue;
		if (!isShape(answer, "approve")) {
			throw new HookResultError(
				`invalid trust_decision result from extension ${extensionId}: expected {"approve":boolean}`,
			);
		}
		if (answer.approve && decision === "ask") approvedBy ??= extensionId;
	}
	return approvedBy;
}
