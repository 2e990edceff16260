/** The invocation context snapshot (protocol `ContextSnapshot`) read from a live pi session. */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContextSnapshot } from "../protocol/frames.js";

/** The fields of pi's Model an extension sees: no headers, no key, nothing else pier has not looked at. */
const MODEL_FIELDS = [
	"id",
	"name",
	"api",
	"provider",
	"reasoning",
	"thinkingLevelMap",
	"input",
	"cost",
	"contextWindow",
	"maxTokens",
] as const;

/**
 * A model as extensions see it (REFERENCES decision 14: credentials never reach extensions). Headers are
 * `null`, as rpi sends them; the base URL keeps its origin and path, not a user, password or query, where
 * some providers carry a key.
 */
export function modelForExtensions(model: unknown): unknown {
	if (!model || typeof model !== "object") return model;
	const source = model as Record<string, unknown>;
	const out: Record<string, unknown> = {};
	for (const key of MODEL_FIELDS) if (source[key] !== undefined) out[key] = source[key];
	if (typeof source.baseUrl === "string") {
		try {
			const url = new URL(source.baseUrl);
			out.baseUrl = `${url.origin}${url.pathname}`;
		} catch {
			// not a URL: nothing of it is shown
		}
	}
	out.headers = null;
	return out;
}

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
