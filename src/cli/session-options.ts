/** Command-line options → the session factory's options, shared by every mode. */
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { AgentSessionRuntimeDiagnostic } from "@earendil-works/pi-coding-agent";
import { type PierSessionOptions, PierUsageError, type SessionTarget } from "../agent/session-factory.js";
import type { CliArgs } from "./args.js";

const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];

export function sessionOptionsFrom(args: CliArgs): PierSessionOptions {
	if (args.thinking && !THINKING_LEVELS.includes(args.thinking as ThinkingLevel)) {
		throw new PierUsageError(`--thinking must be one of ${THINKING_LEVELS.join(", ")}, got "${args.thinking}"`);
	}
	const session: SessionTarget = args.noSession
		? { kind: "memory" }
		: args.session
			? { kind: "open", file: args.session }
			: args.continue
				? { kind: "continue" }
				: { kind: "new" };
	return {
		...(args.cwd ? { cwd: args.cwd } : {}),
		...(args.model ? { model: args.model } : {}),
		...(args.provider ? { provider: args.provider } : {}),
		...(args.models ? { models: args.models } : {}),
		...(args.apiKey ? { apiKey: args.apiKey } : {}),
		skillPaths: args.skills,
		promptTemplatePaths: args.promptTemplates,
		themePaths: args.themes,
		noSkills: args.noSkills,
		noPromptTemplates: args.noPromptTemplates,
		noThemes: args.noThemes,
		noContextFiles: args.noContextFiles,
		...(args.thinking ? { thinkingLevel: args.thinking as ThinkingLevel } : {}),
		...(args.approve !== undefined ? { approve: args.approve } : {}),
		session,
		...(args.tools ? { toolNames: args.tools } : {}),
		...(args.noTools ? { noTools: args.noTools } : {}),
		...(args.excludeTools ? { excludeTools: args.excludeTools } : {}),
		...(args.noMcp ? { noMcp: true } : {}),
		...(args.name !== undefined ? { sessionName: args.name } : {}),
		...(args.sessionId !== undefined ? { sessionId: args.sessionId } : {}),
		...(args.systemPrompt !== undefined ? { systemPrompt: args.systemPrompt } : {}),
		...(args.appendSystemPrompt.length > 0 ? { appendSystemPrompt: args.appendSystemPrompt } : {}),
		extensionPaths: args.extensions,
		noExtensions: args.noExtensions,
		extensionFlags: args.extensionFlags,
	};
}

export function reportDiagnostics(diagnostics: readonly AgentSessionRuntimeDiagnostic[]): void {
	for (const d of diagnostics) {
		const label = d.type === "error" ? "error" : d.type === "warning" ? "warning" : "note";
		process.stderr.write(`pier: ${label}: ${d.message}\n`);
	}
}
