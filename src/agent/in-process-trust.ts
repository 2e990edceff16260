/**
 * An undecided project's trust, asked of in-process extensions and then of the user, from inside pi's resource
 * loader. Given `resolveProjectTrust`, pi's loader first loads the user's own extensions (never the project's) and
 * hands them over, as pi's CLI does; their `project_trust` handlers (pi 1.6's event) answer in load order, the first
 * `yes` or `no` deciding, `remember` storing it. Protocol extensions' trust hooks were asked before (trust-hooks.ts),
 * and pier's bridge, which forwards pi's events to them, is not asked again. When no handler decides, the terminal's
 * question is asked, as before.
 */
import { auditTrustOnce } from "../audit/trust-audit.js";
import type { LoadExtensionsResult, SettingsManager } from "@earendil-works/pi-coding-agent";
import type { Mode } from "../extensions/protocol/frames.js";
import { approvedByExtension, answeredByUser, refusedByExtension, type TrustDecision } from "../extensions/trust.js";
import { TrustStore } from "../extensions/trust-store.js";
import { emitProjectTrust } from "../pi-seams/project-trust-event.js";

export interface InProcessTrustOptions {
	decision: TrustDecision;
	agentDir: string;
	mode: Mode | undefined;
	settingsManager: SettingsManager;
	/** pier's bridge to protocol extensions, whose hooks were asked already. */
	bridgePath: string;
	askProjectTrust?: (decision: TrustDecision) => Promise<boolean | undefined>;
	report: (message: string) => void;
}

/** The decision after the handlers of `loaded` and, if they leave it open, the user; `options.decision` if neither. */
export async function decideWithInProcessExtensions(
	loaded: LoadExtensionsResult,
	options: InProcessTrustOptions,
): Promise<TrustDecision> {
	const { decision } = options;
	const context = {
		cwd: decision.cwd,
		mode: options.mode === "tui" ? ("interactive" as const) : (options.mode ?? "print"),
		settingsManager: options.settingsManager,
		hasUI: options.mode === "tui",
	};
	// One extension at a time, in pi's order, so the one that decided can be named.
	for (const extension of loaded.extensions) {
		if (extension.path === options.bridgePath) continue;
		const answer = await emitProjectTrust({ ...loaded, extensions: [extension] }, context);
		for (const message of answer.errors) options.report(message);
		if (!answer.result) continue;
		const trusted = answer.result.trusted === "yes";
		const by = `extension ${extension.path}`;
		if (answer.result.remember === true) new TrustStore(options.agentDir).set(decision.cwd, trusted, by);
		else auditTrustOnce(options.agentDir, decision.cwd, trusted, by, extension.path);
		return trusted ? approvedByExtension(decision, extension.path) : refusedByExtension(decision, extension.path);
	}
	const answer = await options.askProjectTrust?.(decision);
	return answer === undefined ? decision : answeredByUser(decision, answer);
}
