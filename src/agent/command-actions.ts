/**
 * What pi's command contexts do when a command calls `ctx.newSession()`, `fork()`, `switchSession()`,
 * `navigateTree()`, `reload()` or `waitForIdle()`: pi's modes bind these to their runtime, and an embedder that
 * binds none gets pi's no-ops (a `newSession` that answers "not cancelled" and changes nothing).
 */
import type { AgentSessionRuntime, ExtensionCommandContextActions } from "@earendil-works/pi-coding-agent";

export function commandContextActions(
	runtime: AgentSessionRuntime,
	onReloaded: () => void = () => {},
): ExtensionCommandContextActions {
	return {
		waitForIdle: () => runtime.session.agent.waitForIdle(),
		navigateTree: async (targetId, options) => {
			const result = await runtime.session.navigateTree(targetId, {
				...(options?.summarize !== undefined ? { summarize: options.summarize } : {}),
				...(options?.customInstructions ? { customInstructions: options.customInstructions } : {}),
				...(options?.replaceInstructions !== undefined ? { replaceInstructions: options.replaceInstructions } : {}),
				...(options?.label ? { label: options.label } : {}),
			});
			return { cancelled: result.cancelled };
		},
		reload: () => runtime.session.reload().then(onReloaded),
		newSession: (options) => runtime.newSession(options),
		fork: async (entryId, options) => ({ cancelled: (await runtime.fork(entryId, options)).cancelled }),
		switchSession: (path, options) => runtime.switchSession(path, options),
	};
}
