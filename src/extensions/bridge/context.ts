/** The invocation context snapshot (protocol `ContextSnapshot`) read from a live pi session. */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContextSnapshot } from "../protocol/frames.js";
import { modelForExtensions } from "./event-data.js";

/**
 * `projectTrusted` is pi's own `ctx.isProjectTrusted()`: pier's trust decision as pi's settings manager holds it
 * (trust-settings.ts), so a protocol extension hears what an in-process one does, after a reload too.
 */
export function contextSnapshot(
	pi: ExtensionAPI,
	ctx: ExtensionContext,
	flagNames: readonly string[],
): ContextSnapshot {
	const usage = ctx.getContextUsage();
	const sessionName = pi.getSessionName();
	const sessionFile = ctx.sessionManager.getSessionFile();
	const flagValues: Record<string, unknown> = {};
	for (const name of flagNames) {
		const value = pi.getFlag(name);
		if (value !== undefined) flagValues[name] = value;
	}
	return {
		...(sessionName ? { sessionName } : {}),
		sessionId: ctx.sessionManager.getSessionId(),
		...(sessionFile ? { sessionFile } : {}),
		isIdle: ctx.isIdle(),
		projectTrusted: ctx.isProjectTrusted(),
		hasPendingMessages: ctx.hasPendingMessages(),
		...(usage
			? {
					contextUsage: {
						...(usage.tokens !== null ? { tokens: usage.tokens } : {}),
						contextWindow: usage.contextWindow,
						...(usage.percent !== null ? { percent: usage.percent } : {}),
					},
				}
			: {}),
		activeTools: pi.getActiveTools(),
		allTools: pi.getAllTools().map((t) => t.name),
		commands: pi
			.getCommands()
			.map((c) => (c.description ? { name: c.name, description: c.description } : { name: c.name })),
		flagValues,
		systemPrompt: ctx.getSystemPrompt(),
		...(ctx.model ? { model: modelForExtensions(ctx.model) } : {}),
		thinkingLevel: pi.getThinkingLevel(),
	};
}
